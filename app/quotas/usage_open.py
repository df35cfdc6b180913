"""What the running totals do not hold yet, read from the database: the pieces written down
and not folded, and the open part of the marks (the deployments holding now), as intervals
of use with their rates. ``app.quotas.usage_totals`` adds them to the totals; a reading keeps
them once per owner (``usage_totals.one_reading``).

Also the small kit the usage readers share: statements built once per shape and run on the
session's connection, and owners' conditions as bound parameters.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import bindparam, or_, select

from app.extensions import db
from app.quotas.usage_models import UsageMark, UsagePiece
from app.quotas.usage_today import julian_day, today_statement


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


class Interval(NamedTuple):
    """A stretch of use at its rates. A tuple: a page reads hundreds (one per person and set
    of GPU models), and a frozen dataclass cost ten times as much to make."""

    user_id: int
    group_name: str
    start: datetime
    end: datetime
    cores: float
    memory_gb: float
    gpu_models: dict


def merged(intervals: list[Interval], by: str | None) -> list[Interval]:
    """``intervals`` of one owner (as ``by`` tells owners apart: "user", "group", or one for
    all with None) over the same stretch summed into one, rates added."""
    sums: dict[tuple, list] = {}
    for interval in intervals:
        key = (_owner(interval, by), interval.start, interval.end)
        found = sums.get(key)
        if found is None:
            found = sums[key] = [interval, 0.0, 0.0, {}]
        found[1] += interval.cores
        found[2] += interval.memory_gb
        models = found[3]
        for model, count in interval.gpu_models.items():
            models[model] = models.get(model, 0.0) + count
    return [
        Interval(first.user_id, first.group_name, first.start, first.end, cores, memory, gpu_models)
        for first, cores, memory, gpu_models in sums.values()
    ]


def read_open(
    user_id: int | None, group_name: str | None, now: datetime, either: bool = False
) -> list[Interval]:
    """The pieces of ``user_id`` and/or ``group_name`` (``either``: or) not folded yet, and
    their marks' use up to ``now``: see ``usage_totals.open_intervals``."""
    found = []
    values = _owner_values(user_id, group_name)
    shape = (user_id is not None, group_name is not None, either)
    owner = (user_id, group_name, either)
    pieces = _statement(
        ("pieces", *shape),
        lambda: select(UsagePiece.__table__).where(*_where(UsagePiece, *owner)),
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
    todays, any_older = _marks_of_today(user_id, group_name, today, now, either)
    if any_older:
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
    found.extend(todays)
    return found


def _marks_of_today(
    user_id: int | None, group_name: str | None, today: datetime, now: datetime, either: bool
) -> tuple[list[Interval], bool]:
    """The marks that began today, before ``now``, summed per owner and set of GPU models:
    each sum an interval over today so far whose rates give the marks' hours; and whether
    any mark began before today (to be read one by one)."""
    span = (now - today) / timedelta(hours=1)
    if span <= 0:
        return [], True
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
    any_older = False
    for owner, group, gpu_text, late, cores, memory, count, since_sum in rows:
        if late:
            any_older = True
            continue
        # Hours held since each mark's start: the sum of (now - since); the rates are the
        # row's own.
        held = max((count * elapsed - float(since_sum or 0)) / 3600.0, 0.0)
        per_hour = held / span  # marks held as one over today so far
        gpus = models_of.get(gpu_text)
        if gpus is None:
            gpus = models_of[gpu_text] = json.loads(gpu_text) if gpu_text else {}
        found.append(
            Interval(
                owner,
                group,
                today,
                now,
                float(cores) * per_hour,
                float(memory) * per_hour,
                {model: float(n) * per_hour for model, n in gpus.items()},
            )
        )
    return found, any_older
