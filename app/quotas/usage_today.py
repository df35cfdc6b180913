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
from sqlalchemy.sql.elements import Null

from app.extensions import db
from app.quotas.usage_models import UsageMark, UsagePiece
from app.quotas.usage_reading import owner_where


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


def open_statement(dialect: str, owner: tuple[bool, bool, bool]):
    """What the totals do not hold yet of an owner, in one statement (``open_selects``)."""
    return union_all(*open_selects(dialect, owner))


def open_selects(
    dialect: str,
    owner: tuple[bool, bool, bool],
    padding: tuple = (),
    named: bool = False,
):
    """What the totals do not hold yet of an owner (``owner``: whether the person is asked,
    whether the group, and whether either, bound as ``user_id`` and ``group_name``: see
    ``usage_reading.owner_where``), as two selects to be read together (``union_all``),
    each row (user id, group, start, end, GPU models as JSON text, cores, memory GB, count,
    seconds), then a NULL of each type of ``padding`` (the columns of other rows read in the
    same statement). ``named``: the rows name only the person and the group asked, NULL for
    anyone else, so that the marks of everyone else are summed together: the sums of a big
    group's use take a few rows, not one per member:

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
    (``usage_open``, ``budget_usage``). The tables are named short: a statement longer than
    4 KB is converted anew at each run by PostgreSQL's driver."""
    p, m = UsagePiece.__table__.alias("p").c, UsageMark.__table__.alias("m").c
    has_user, has_group, either = owner
    asked = (has_user or None, has_group or None, either)
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
    mark_owners, piece_owners = (m.user_id, m.group_name), (p.user_id, p.group_name)
    if named:
        mark_owners, piece_owners = _named(m, has_user, has_group), _named(p, has_user, has_group)
    keys = (*mark_owners, older, text(m.gpu_models), m.cores, m.memory_gb)
    # A NULL is no key (PostgreSQL refuses a constant in GROUP BY).
    grouped = [key for key in keys if not isinstance(key, Null)]
    marks = (
        select(*keys[:3], null(), *keys[3:], func.count(), func.sum(seconds))
        .add_columns(*[null()] * len(padding))
        .where(*owner_where(m, *asked), m.since < bindparam("now", type_=DateTime))
        .group_by(*grouped)
    )
    # First: its columns' types read the rows of all (the dates); its NULLs typed, or
    # PostgreSQL would take a column NULL in every select so far for text.
    pieces = select(
        *piece_owners, p.start, p.end, text(p.gpu_models), p.cores, p.memory_gb
    ).add_columns(null(), null(), *[cast(null(), kind) for kind in padding])
    return [pieces.where(*owner_where(p, *asked)), marks]


def _named(table, person: bool, group: bool) -> tuple:
    """The owner columns of ``table`` naming only the person and the group asked."""
    user_id, group_name = table.user_id, table.group_name
    return (
        case((user_id == bindparam("user_id"), user_id)) if person else null(),
        case((group_name == bindparam("group_name"), group_name)) if group else null(),
    )
