"""Seconds between moments in the database's own date arithmetic, and the statement that sums
the marks that began today with it (``usage_open``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import DateTime, String, bindparam, case, cast, func, select

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
    """The sums of the marks begun before ``now`` whose owner is ``owner`` (conditions), per
    owner, set of GPU models and whether they began before ``today`` (bound, with its
    ``today_day``): each mark's seconds since midnight worked out once, in a subquery, and
    summed three ways. The sums of marks begun before today mean nothing: that there are any
    tells the caller to read those marks one by one, which the worker leaves rarely, so that
    a page does not scan an owner's marks twice to find none. Built once per shape by its
    caller (``usage_open._statement``)."""
    m = UsageMark
    if dialect == "postgresql":
        # date_part gives a double, where extract gives a numeric (PostgreSQL 14 and later)
        # whose sums over thousands of marks cost a third more.
        seconds = func.date_part("epoch", m.since - bindparam("today", type_=DateTime))
    else:  # as ``seconds_after``, midnight's day number given
        seconds = func.round((func.julianday(m.since) - bindparam("today_day")) * 86400.0, 3)
    late = case((m.since < bindparam("today", type_=DateTime), 1), else_=0)
    marks = (
        select(
            m.user_id,
            m.group_name,
            cast(m.gpu_models, String).label("models"),
            late.label("late"),
            m.cores,
            m.memory_gb,
            seconds.label("seconds"),
        )
        .where(*owner, m.since < bindparam("now", type_=DateTime))
        .subquery()
    )
    seconds = marks.c.seconds
    return select(
        marks.c.user_id,
        marks.c.group_name,
        marks.c.models,
        marks.c.late,
        func.count(),
        func.sum(seconds),
        func.sum(marks.c.cores),
        func.sum(marks.c.cores * seconds),
        func.sum(marks.c.memory_gb),
        func.sum(marks.c.memory_gb * seconds),
    ).group_by(marks.c.user_id, marks.c.group_name, marks.c.models, marks.c.late)
