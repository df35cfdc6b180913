"""Usage over time, read from the running totals (``app.quotas.usage_marks``): core-hours,
memory GB-hours and GPU-hours per model, per day or per month, for one person, one group or
everyone, exact to the second at ``now``.

What is read: the folded totals of the span, plus the pieces written down and not yet folded,
plus the open part of the marks (the deployments holding now), clipped to the span. Never a
sum over deployments.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import bindparam, func, select

from app.clock import utcnow
from app.quotas.usage_marks import month_of, spread
from app.quotas.usage_models import (
    CORES_ROW,
    DAY,
    MONTH,
    WHOLE_GROUP,
    UsageTotal,
)
from app.quotas.usage_open import Interval, merged, read_open
from app.quotas.usage_reading import kept, owner_of, owner_values, owner_where, run


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


@dataclass
class _Reading:
    now: datetime
    opened: dict = field(default_factory=dict)
    merged: dict = field(default_factory=dict)


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
    people: Collection[int] | None = None,
    now: datetime | None = None,
) -> dict:
    """Hours per day (``span`` DAY) or per month (MONTH, ``first`` and ``last`` any day of
    their months) from ``first`` to ``last`` included, for ``user_id``, ``group_name`` (both:
    the person's use charged to the group) or everyone. Keyed by the day (or the month's first
    day); with ``by`` "user" or "group", by (owner, day) instead, owners being user ids or
    group names (``""``: charged to no group). With ``by`` "user", ``people`` keeps only
    those user ids (a page of a group's members, not all of them)."""
    now = _now(now)
    wanted = None if people is None else set(people)
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
    some = wanted is not None
    shape = ("totals", by, user_id is not None, group_name is not None, whole_group, some)
    statement = kept(
        shape, lambda: _totals_statement(by, user_id, group_name, whole_group, some=some)
    )
    values = {"span": span, "first": first, "last": last, **owner_values(user_id, group_name)}
    if some:
        values["people"] = sorted(wanted)
    rows = run(statement, values)
    for row in rows:
        owner = row[0] if by else None
        start, model, cores, memory, gpus = row[-5:]
        bucket(owner, start).add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    window_end = datetime.combine(first_day_after(span, last), datetime.min.time())
    window = (datetime.combine(first, datetime.min.time()), min(window_end, now))
    for interval in _open_merged(user_id, group_name, now, by):
        if some and interval.user_id not in wanted:
            continue
        start, end = max(interval.start, window[0]), min(interval.end, window[1])
        for day, hours in spread(start, end):
            target = bucket(owner_of(interval, by), day if span == DAY else month_of(day))
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
    some: bool = False,
):
    """The totals of a span summed per (owner, ) day or month and model; without
    ``per_start``, per model over the whole span; with ``some``, of the people bound as
    ``people`` alone."""
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
            *owner_where(t, user_id, group_name),
            *whose_rows(user_id, whole_group),
            *([t.user_id.in_(bindparam("people", expanding=True))] if some else []),
        )
        .group_by(*owner_columns, *starts, t.gpu_model)
    )


def whose_rows(user_id: int | None, whole_group: bool, t=UsageTotal) -> list:
    """A group's whole use is read from its own rows (one per day or month and model);
    everything else from the people's rows, leaving the groups' own out of the sums.
    ``t``: the totals' columns, when read under another name."""
    if user_id is not None:
        return []  # a person's id is never WHOLE_GROUP
    return [t.user_id == WHOLE_GROUP] if whole_group else [t.user_id != WHOLE_GROUP]


def first_day_after(span: str, last: date) -> date:
    """The first day after the span that starts on ``last``."""
    if span == DAY:
        return last + timedelta(days=1)
    return date(last.year + last.month // 12, last.month % 12 + 1, 1)


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
        return read_open(user_id, group_name, now)
    key = (user_id, group_name)
    if key not in reading.opened:
        reading.opened[key] = read_open(user_id, group_name, now)
    return reading.opened[key]


def open_unread(user_id: int | None, group_name: str | None, now: datetime) -> bool:
    """Whether a reading of ``now`` is on and has not summed the open part of the owner (the
    person, the group, or the person in it) yet: its reader may read it along with other
    figures, and hand it over (``keep_summed``)."""
    reading = _READING.get()
    return (
        reading is not None
        and reading.now == now
        and (user_id, group_name, None) not in reading.merged
    )


def keep_summed(user_id, group_name, intervals: list[Interval], either: bool = False) -> None:
    """Keep in the reading the owner's open part read elsewhere (as ``read_open`` reads it, of
    the same owner and ``either``), summed over its stretches as ``add_open`` needs it; with
    ``either`` (what runs of the person or the group), the person's, the group's and the
    person's in it. ``intervals`` need name no one but the person and the group (others'
    use summed in rows of no person, or no group): only their sums are kept."""
    reading = _READING.get()
    owners = ((user_id, None), (None, group_name), (user_id, group_name))
    for u, g in owners if either else ((user_id, group_name),):
        mine = [i for i in intervals if u in (None, i.user_id) and g in (None, i.group_name)]
        reading.merged.setdefault((u, g, None), merged(mine, None))


def _open_merged(
    user_id: int | None, group_name: str | None, now: datetime, by: str | None
) -> list[Interval]:
    """``open_intervals``, those of one owner (as ``by`` tells owners apart: one for all
    with None) over the same stretch summed into one (``merged``): the marks of today come
    one per person and set of GPU models, hundreds for a big group, and a sum over the group
    needs only their total rates. Kept for the reading, as ``open_intervals`` is."""
    reading = _READING.get()
    if reading is None or reading.now != now:
        return merged(open_intervals(user_id=user_id, group_name=group_name, now=now), by)
    key = (user_id, group_name, by)
    if key not in reading.merged:
        opened = open_intervals(user_id=user_id, group_name=group_name, now=now)
        reading.merged[key] = merged(opened, by)
    return reading.merged[key]


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
    statement = kept(
        shape, lambda: _totals_statement(None, user_id, group_name, whole_group, per_start=False)
    )
    first, last = start.date(), now.date()
    if span == MONTH:
        first, last = month_of(first), month_of(last)
    values = {"span": span, "first": first, "last": last, **owner_values(user_id, group_name)}
    total = Hours()
    for model, cores, memory, gpus in run(statement, values):
        total.add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    return add_open(total, start, now, user_id=user_id, group_name=group_name)


def add_open(
    total: Hours, start: datetime, now: datetime, *, user_id=None, group_name=None
) -> Hours:
    """``total`` plus the owner's open part (``open_intervals``) from ``start`` to ``now``."""
    for interval in _open_merged(user_id, group_name, now, None):
        hours = (min(interval.end, now) - max(interval.start, start)) / timedelta(hours=1)
        if hours > 0:
            total.add(CORES_ROW, interval.cores * hours, interval.memory_gb * hours, 0.0)
            for model, count in interval.gpu_models.items():
                total.add(model, 0.0, 0.0, count * hours)
    return total
