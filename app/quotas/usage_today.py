"""Seconds between moments in the database's own date arithmetic, and the statement that reads
what the totals do not hold yet with it: the pieces not folded and the marks, those of today
summed (``usage_open``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import (
    DateTime,
    String,
    bindparam,
    case,
    cast,
    func,
    null,
    select,
    type_coerce,
    union_all,
)

from app.extensions import db
from app.quotas.usage_models import UsageMark, UsagePiece


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


def open_statement(dialect: str, pieces_owner: list, marks_owner: list):
    """What the totals do not hold yet of an owner (``pieces_owner`` and ``marks_owner``, the
    owner's conditions on each table), in one statement, each row (user id, group, start,
    end, GPU models as JSON text, cores, memory GB, count, seconds):

    - a piece not folded yet: its stretch (``end`` set) and rates, count and seconds None;
    - the marks begun before ``now`` (bound) and before ``today`` (bound, with its
      ``today_day``), each set of equal ones (owner, models, rates, ``since``) in a row: its
      ``since`` as ``start``, no ``end``, and how many;
    - the marks begun today before ``now``, counted per owner, set of GPU models and rate,
      with the sum of their seconds since midnight (no ``start``, no ``end``). A rate is the
      same for all the marks of a row, so their hours are the rate times the summed seconds:
      each mark's seconds are worked out once and summed once, where summing rate times
      seconds per mark cost three date computations and five sums a mark. A person runs few
      rates, so the rows stay about one per person and set of models.

    The worker writes marks down every hour, so marks begun before today are rare: the
    owner's marks are scanned once, for both kinds. Built once per shape by its caller
    (``usage_open``)."""
    p, m = UsagePiece, UsageMark
    today = bindparam("today", type_=DateTime)
    if dialect == "postgresql":
        # date_part gives a double, where extract gives a numeric (PostgreSQL 14 and later)
        # whose sums over thousands of marks cost a third more.
        seconds = func.date_part("epoch", m.since - today)

        def text(column):  # a json value has no equality: its text is grouped
            return cast(column, String)

    else:  # as ``seconds_after``, midnight's day number given
        seconds = func.round((func.julianday(m.since) - bindparam("today_day")) * 86400.0, 3)

        def text(column):  # stored as text already: read as text, with no copy to group by
            return type_coerce(column, String)

    older = case((m.since < today, m.since))
    keys = (m.user_id, m.group_name, older, text(m.gpu_models), m.cores, m.memory_gb)
    marks = (
        select(*keys[:3], null(), *keys[3:], func.count(), func.sum(seconds))
        .where(*marks_owner, m.since < bindparam("now", type_=DateTime))
        .group_by(*keys)
    )
    # First: its columns' types read the rows of both (the dates).
    pieces = select(
        p.user_id, p.group_name, p.start, p.end, text(p.gpu_models), p.cores, p.memory_gb
    ).add_columns(null(), null())
    return union_all(pieces.where(*pieces_owner), marks)
