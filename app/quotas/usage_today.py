"""Seconds between moments in the database's own date arithmetic, and the statement that sums
the marks that began today with it (``usage_open``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import DateTime, String, bindparam, cast, func, select, type_coerce

from app.extensions import db
from app.quotas.usage_models import UsageMark


def seconds_after(column, start: datetime):
    """``column`` - ``start`` in seconds, in the database's own date arithmetic."""
    if db.engine.dialect.name == "postgresql":
        return func.extract("epoch", column - start)
    # julianday counts days in a double: rounded to the millisecond, a whole hour stays whole.
    # ``start``'s own day number is worked out here, not once per row.
    days = func.julianday(column) - julian_day(start)
    return func.round(days * 86400.0, 3)


_EPOCH = datetime(1970, 1, 1)
_JULIAN_EPOCH = 2440587.5  # julianday('1970-01-01')


def julian_day(moment: datetime) -> float:
    """SQLite's ``julianday`` of ``moment``, worked out in Python."""
    return _JULIAN_EPOCH + (moment - _EPOCH) / timedelta(days=1)


def today_statement(dialect: str, owner: list):
    """The marks begun before ``now`` whose owner is ``owner`` (conditions), counted per
    owner, set of GPU models, rate (cores, memory) and whether they began before ``today``
    (bound, with its ``today_day``), with the sum of their seconds since midnight. A rate is
    the same for all the marks of a row, so their hours are the rate times the summed
    seconds: each mark's seconds are worked out once and summed once, where summing rate
    times seconds per mark cost three date computations and five sums a mark. A person runs
    few rates, so the rows stay about one per person and set of models. The sums of marks
    begun before today mean nothing: that there are any tells the caller to read those marks
    one by one, which the worker leaves rarely, so that a page does not scan an owner's marks
    twice to find none. Built once per shape by its caller (``usage_open._statement``)."""
    m = UsageMark
    if dialect == "postgresql":
        # date_part gives a double, where extract gives a numeric (PostgreSQL 14 and later)
        # whose sums over thousands of marks cost a third more.
        seconds = func.date_part("epoch", m.since - bindparam("today", type_=DateTime))
        # A json value has no equality: its text is grouped.
        models = cast(m.gpu_models, String)
    else:  # as ``seconds_after``, midnight's day number given
        seconds = func.round((func.julianday(m.since) - bindparam("today_day")) * 86400.0, 3)
        # Stored as text already: read as text, with no copy of each mark's to group by.
        models = type_coerce(m.gpu_models, String)
    late = m.since < bindparam("today", type_=DateTime)
    keys = (m.user_id, m.group_name, models, late, m.cores, m.memory_gb)
    return (
        select(*keys, func.count(), func.sum(seconds))
        .where(*owner, m.since < bindparam("now", type_=DateTime))
        .group_by(*keys)
    )
