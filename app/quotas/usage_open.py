"""What the running totals do not hold yet, read from the database: the pieces written down
and not folded, and the open part of the marks (the deployments holding now), as intervals
of use with their rates. ``app.quotas.usage_totals`` adds them to the totals; a reading keeps
them once per owner (``usage_totals.one_reading``).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import NamedTuple

from app.extensions import db
from app.quotas.usage_reading import kept, owner_of, owner_values, run
from app.quotas.usage_today import julian_day, open_statement


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
        key = (owner_of(interval, by), interval.start, interval.end)
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
    their marks' use up to ``now``, in one statement (``usage_today.open_statement``): see
    ``usage_totals.open_intervals``. The marks that began today come summed per owner and
    set of GPU models, each sum an interval over today so far whose rates give the marks'
    hours; the older ones one by one."""
    dialect = db.engine.dialect.name
    statement = kept(
        ("open", dialect, user_id is not None, group_name is not None, either),
        lambda: open_statement(dialect, (user_id is not None, group_name is not None, either)),
    )
    return intervals_of(
        run(statement, {**owner_values(user_id, group_name), **open_values(now)}), now
    )


def open_values(now: datetime) -> dict:
    """The values of ``usage_today.open_selects``'s parameters, read as of ``now``."""
    today = datetime.combine(now.date(), datetime.min.time())
    return {"today": today, "today_day": julian_day(today), "now": now}


def intervals_of(rows, now: datetime) -> list[Interval]:
    """The intervals of use of the rows of ``usage_today.open_selects`` read as of ``now``:
    pieces, then older marks, then the marks of today."""
    today = datetime.combine(now.date(), datetime.min.time())
    span = (now - today) / timedelta(hours=1)  # today's marks begin after midnight: span > 0
    elapsed = span * 3600.0
    pieces, older, todays = [], [], []
    models_of: dict[str | None, dict] = {}  # a few sets of models, among many owners
    for owner, group, start, end, gpu_text, cores, memory, count, since_sum in rows:
        gpus = models_of.get(gpu_text)
        if gpus is None:
            gpus = models_of[gpu_text] = (json.loads(gpu_text) if gpu_text else None) or {}
        if end is not None:
            pieces.append(Interval(owner, group, start, end, cores, memory, gpus))
        elif start is not None:
            # Marks begun before today, alike: read one by one, as many as they are.
            older.extend([Interval(owner, group, start, now, cores, memory, gpus)] * count)
        else:
            # Hours held since each mark's start: the sum of (now - since); the rates are
            # the row's own.
            held = max((count * elapsed - float(since_sum or 0)) / 3600.0, 0.0)
            per_hour = held / span  # marks held as one over today so far
            todays.append(
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
    return pieces + older + todays
