"""Usage over time, read from the running totals (``app.quotas.usage_marks``): core-hours,
memory GB-hours and GPU-hours per model, per day or per month, for one person, one group or
everyone, exact to the second at ``now``.

What is read: the folded totals of the span, plus the pieces written down and not yet folded,
plus the open part of the marks (the deployments holding now), clipped to the span. Never a
sum over deployments.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import bindparam, func, or_, select

from app.clock import utcnow
from app.extensions import db
from app.quotas.usage_marks import month_of, spread
from app.quotas.usage_models import (
    CORES_ROW,
    DAY,
    MONTH,
    WHOLE_GROUP,
    UsageMark,
    UsagePiece,
    UsageTotal,
)
from app.quotas.usage_today import julian_day, today_statement


@dataclass
class Hours:
    """Hours used: core-hours, memory GB-hours, and GPU-hours per GPU model."""

    core_hours: float = 0.0
    memory_gb_hours: float = 0.0
    gpu_hours: dict[str, float] = field(default_factory=dict)

    @property
    def gpu_total(self) -> float:
        return sum(self.gpu_hours.values())

    def add(self, model: str, cores: float, memory: float, gpus: float) -> None:
        self.core_hours += cores
        self.memory_gb_hours += memory
        if model != CORES_ROW:
            self.gpu_hours[model] = self.gpu_hours.get(model, 0.0) + gpus

    def gpu(self, model: str | None) -> float:
        """GPU-hours of ``model``, or of every model (None)."""
        return self.gpu_total if model is None else self.gpu_hours.get(model, 0.0)


def _where(table, user_id: int | None, group_name: str | None, either: bool = False) -> list:
    """The owner's condition, with the values as bound parameters named ``user_id`` and
    ``group_name`` (``either``: one or the other): built once and kept (``_statement``)."""
    where = []
    if user_id is not None:
        where.append(table.user_id == bindparam("user_id"))
    if group_name is not None:
        where.append(table.group_name == bindparam("group_name"))
    return [or_(*where)] if either and len(where) > 1 else where


# Statements built once per shape and kept: building one costs more CPU than running it on a
# small table (budgets are read at every cost box), and the values go in as parameters.
_STATEMENTS: dict[tuple, object] = {}


def _statement(key: tuple, build):
    found = _STATEMENTS.get(key)
    if found is None:
        found = _STATEMENTS[key] = build()
    return found


def _run(statement, values: dict):
    """Run a kept statement on the session's connection (in its transaction): these read
    tables, not objects, so the ORM's handling of a statement is not needed."""
    return db.session.connection().execute(statement, values)


def _owner_values(user_id: int | None, group_name: str | None) -> dict:
    values = {}
    if user_id is not None:
        values["user_id"] = user_id
    if group_name is not None:
        values["group_name"] = group_name
    return values


def _owner(row, by: str | None):
    if by == "user":
        return row.user_id
    if by == "group":
        return row.group_name
    return None


@dataclass
class _Reading:
    now: datetime
    opened: dict = field(default_factory=dict)


_READING: ContextVar[_Reading | None] = ContextVar("usage_reading", default=None)


@contextmanager
def one_reading(now: datetime | None = None):
    """Within the block, usage is read as of one instant (``now``), and each owner's open
    part (``open_intervals``) is read from the database once: a page that shows the same
    owner's use several ways (a chart, a table per member, budgets) pays for it once. The
    figures are those of reading each at ``now``. Inside a reading of the same instant (or
    with no instant given), that reading goes on."""
    current = _READING.get()
    if current is not None and now in (None, current.now):
        yield current.now
        return
    reading = _Reading(now or utcnow())
    token = _READING.set(reading)
    try:
        yield reading.now
    finally:
        _READING.reset(token)


def reading_now() -> datetime:
    """The instant usage is read as of: the current reading's (``one_reading``), else now."""
    return _now(None)


def _now(now: datetime | None) -> datetime:
    if now is not None:
        return now
    reading = _READING.get()
    return reading.now if reading else utcnow()


def usage_per(
    span: str,
    first: date,
    last: date,
    *,
    user_id: int | None = None,
    group_name: str | None = None,
    by: str | None = None,
    now: datetime | None = None,
) -> dict:
    """Hours per day (``span`` DAY) or per month (MONTH, ``first`` and ``last`` any day of
    their months) from ``first`` to ``last`` included, for ``user_id``, ``group_name`` (both:
    the person's use charged to the group) or everyone. Keyed by the day (or the month's first
    day); with ``by`` "user" or "group", by (owner, day) instead, owners being user ids or
    group names (``""``: charged to no group)."""
    now = now or utcnow()
    if span == MONTH:
        first, last = month_of(first), month_of(last)
    found: dict = {}

    def bucket(owner, start: date) -> Hours:
        key = start if by is None else (owner, start)
        if key not in found:
            found[key] = Hours()
        return found[key]

    # A group's whole use comes from its own rows; use charged to no group ("") has none.
    whole_group = bool(group_name) and user_id is None and by is None
    shape = ("totals", by, user_id is not None, group_name is not None, whole_group)
    statement = _statement(shape, lambda: _totals_statement(by, user_id, group_name, whole_group))
    rows = _run(
        statement,
        {"span": span, "first": first, "last": last, **_owner_values(user_id, group_name)},
    )
    for row in rows:
        owner = row[0] if by else None
        start, model, cores, memory, gpus = row[-5:]
        bucket(owner, start).add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    window_end = datetime.combine(_after(span, last), datetime.min.time())
    window = (datetime.combine(first, datetime.min.time()), min(window_end, now))
    for interval in open_intervals(user_id=user_id, group_name=group_name, now=now):
        start, end = max(interval.start, window[0]), min(interval.end, window[1])
        for day, hours in spread(start, end):
            target = bucket(_owner(interval, by), day if span == DAY else month_of(day))
            target.add(CORES_ROW, interval.cores * hours, interval.memory_gb * hours, 0.0)
            for model, count in interval.gpu_models.items():
                target.add(model, 0.0, 0.0, count * hours)
    return found


def _totals_statement(
    by: str | None,
    user_id: int | None,
    group_name: str | None,
    whole_group: bool,
    *,
    per_start: bool = True,
):
    """The totals of a span summed per (owner, ) day or month and model; without
    ``per_start``, per model over the whole span."""
    t = UsageTotal
    owner_columns = {"user": [t.user_id], "group": [t.group_name]}.get(by, [])
    starts = [t.start] if per_start else []
    return (
        select(
            *owner_columns,
            *starts,
            t.gpu_model,
            func.sum(t.core_hours),
            func.sum(t.memory_gb_hours),
            func.sum(t.gpu_hours),
        )
        .where(
            t.span == bindparam("span"),
            t.start >= bindparam("first"),
            t.start <= bindparam("last"),
            *_where(t, user_id, group_name),
            *_whose_rows(user_id, whole_group),
        )
        .group_by(*owner_columns, *starts, t.gpu_model)
    )


def _whose_rows(user_id: int | None, whole_group: bool) -> list:
    """A group's whole use is read from its own rows (one per day or month and model);
    everything else from the people's rows, leaving the groups' own out of the sums."""
    if user_id is not None:
        return []  # a person's id is never WHOLE_GROUP
    t = UsageTotal
    return [t.user_id == WHOLE_GROUP] if whole_group else [t.user_id != WHOLE_GROUP]


def _after(span: str, last: date) -> date:
    """The first day after the span that starts on ``last``."""
    if span == DAY:
        return last + timedelta(days=1)
    return date(last.year + last.month // 12, last.month % 12 + 1, 1)


@dataclass(frozen=True)
class Interval:
    user_id: int
    group_name: str
    start: datetime
    end: datetime
    cores: float
    memory_gb: float
    gpu_models: dict


def open_intervals(
    *, user_id: int | None = None, group_name: str | None = None, now: datetime | None = None
) -> list[Interval]:
    """What the totals do not hold yet: the pieces written down and not folded, and each
    mark's use from its ``since`` to ``now``.

    The worker writes marks down every hour (``MOVE_AFTER``), so nearly every mark began
    today: those are summed in the database, one interval per owner and set of GPU models
    carrying their hours over today so far, rather than read one by one (a group running five
    thousand deployments has as many marks). Older marks, which a late worker leaves, are read
    one by one and spread over their days."""
    now = _now(now)
    reading = _READING.get()
    if reading is None or reading.now != now:
        return _read_open(user_id, group_name, now)
    key = (user_id, group_name)
    if key not in reading.opened:
        reading.opened[key] = _read_open(user_id, group_name, now)
    return reading.opened[key]


def _read_open(user_id: int | None, group_name: str | None, now: datetime, either=False):
    found = []
    values = _owner_values(user_id, group_name)
    shape = (user_id is not None, group_name is not None, either)
    owner = [user_id, group_name, either]
    pieces = _statement(
        ("pieces", *shape), lambda: select(UsagePiece.__table__).where(*_where(UsagePiece, *owner))
    )
    for piece in _run(pieces, values):
        found.append(
            Interval(
                piece.user_id,
                piece.group_name,
                piece.start,
                piece.end,
                piece.cores,
                piece.memory_gb,
                piece.gpu_models or {},
            )
        )
    today = datetime.combine(now.date(), datetime.min.time())
    older = _statement(
        ("older marks", *shape),
        lambda: select(UsageMark.__table__).where(
            *_where(UsageMark, *owner), UsageMark.since < bindparam("before")
        ),
    )
    for mark in _run(older, {**values, "before": min(today, now)}):
        found.append(
            Interval(
                mark.user_id,
                mark.group_name,
                mark.since,
                now,
                mark.cores,
                mark.memory_gb,
                mark.gpu_models or {},
            )
        )
    found.extend(_marks_of_today(user_id, group_name, today, now, either))
    return found


def _marks_of_today(
    user_id: int | None, group_name: str | None, today: datetime, now: datetime, either: bool
) -> list[Interval]:
    """The marks that began today, before ``now``, summed per owner and set of GPU models:
    each sum an interval over today so far whose rates give the marks' hours."""
    span = (now - today) / timedelta(hours=1)
    if span <= 0:
        return []
    dialect = db.engine.dialect.name
    statement = _statement(
        ("marks today", dialect, user_id is not None, group_name is not None, either),
        lambda: today_statement(dialect, _where(UsageMark, user_id, group_name, either)),
    )
    rows = _run(
        statement,
        {
            **_owner_values(user_id, group_name),
            "today": today,
            "today_day": julian_day(today),
            "now": now,
        },
    )
    elapsed = span * 3600.0
    found = []
    models_of: dict[str | None, dict] = {}  # a few sets of models, among many owners
    for owner, group, gpu_text, count, since_sum, cores, cores_since, memory, memory_since in rows:
        # Hours held since each mark's start: the sum of (now - since), weighted by the rate.
        held = (count * elapsed - float(since_sum or 0)) / 3600.0
        core_hours = (float(cores or 0) * elapsed - float(cores_since or 0)) / 3600.0
        memory_hours = (float(memory or 0) * elapsed - float(memory_since or 0)) / 3600.0
        gpus = models_of.get(gpu_text)
        if gpus is None:
            gpus = models_of[gpu_text] = json.loads(gpu_text) if gpu_text else {}
        found.append(
            Interval(
                owner,
                group,
                today,
                now,
                max(core_hours, 0.0) / span,
                max(memory_hours, 0.0) / span,
                {model: float(n) * max(held, 0.0) / span for model, n in (gpus or {}).items()},
            )
        )
    return found


def used_since(
    start: datetime,
    *,
    user_id: int | None = None,
    group_name: str | None = None,
    now: datetime | None = None,
) -> Hours:
    """Hours used from ``start`` (the first instant of a day) to ``now``, in total: the
    totals summed in the database (per model: a few rows however long the span), and the
    open part clipped to the span."""
    now = _now(now)
    span = MONTH if start.day == 1 else DAY
    whole_group = bool(group_name) and user_id is None
    shape = ("since", user_id is not None, group_name is not None, whole_group)
    statement = _statement(
        shape, lambda: _totals_statement(None, user_id, group_name, whole_group, per_start=False)
    )
    first, last = start.date(), now.date()
    if span == MONTH:
        first, last = month_of(first), month_of(last)
    values = {"span": span, "first": first, "last": last, **_owner_values(user_id, group_name)}
    total = Hours()
    for model, cores, memory, gpus in _run(statement, values):
        total.add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    return add_open(total, start, now, user_id=user_id, group_name=group_name)


def add_open(total: Hours, start: datetime, now: datetime, **owner) -> Hours:
    """``total`` plus the owner's open part (``open_intervals``) from ``start`` to ``now``."""
    for interval in open_intervals(**owner, now=now):
        hours = (min(interval.end, now) - max(interval.start, start)) / timedelta(hours=1)
        if hours > 0:
            total.add(CORES_ROW, interval.cores * hours, interval.memory_gb * hours, 0.0)
            for model, count in interval.gpu_models.items():
                total.add(model, 0.0, 0.0, count * hours)
    return total
