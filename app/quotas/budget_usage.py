"""What the budgets a launch meets have used in their periods, read together: the totals of
every owner and period, and what the totals do not hold yet of the owners (``usage_open``),
in one statement. The figures are ``usage_totals.used_since``'s for each owner and period; the
rules of what is read (whose rows, which span) are that module's."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, String, and_, bindparam, case, func, null, or_, select, union_all

from app.extensions import db
from app.quotas.usage_marks import month_of
from app.quotas.usage_models import DAY, MONTH, UsageTotal
from app.quotas.usage_open import intervals_of, open_values
from app.quotas.usage_reading import owner_values, owner_where, run
from app.quotas.usage_today import open_selects
from app.quotas.usage_totals import Hours, add_open, keep_summed, open_unread, whose_rows

# The statement of each shape of owners and periods, built once: building it costs more than
# running it, and it is asked at every cost box that meets a budget.
_STATEMENTS: dict[tuple, object] = {}
# The columns of a row of what the totals do not hold yet (``usage_today.open_selects``).
_OPEN_COLUMNS = 9


def used_by_period(
    asked: list[tuple[dict, datetime]],
    now: datetime,
    opening: tuple[int | None, str | None, bool] | None = None,
) -> list[Hours]:
    """The hours each (owner, period start) of ``asked`` used from its start to ``now``, the
    owner given as the totals' columns ({"user_id": 7}, {"group_name": "physics"} or both);
    inside ``usage_totals.one_reading`` of ``now``, what runs is read once per owner. With
    ``opening`` (user id, group name, either: as ``usage_open.read_open``), the open part of
    that owner is read in the same statement, unless the reading holds it already."""
    if not asked:
        return []
    shapes, values = [], {}
    for n, (owner, start) in enumerate(asked):
        user_id, group_name = owner.get("user_id"), owner.get("group_name")
        # As ``used_since``: a period from the 1st counts months, else days.
        span = MONTH if start.day == 1 else DAY
        first, last = start.date(), now.date()
        if span == MONTH:
            first, last = month_of(first), month_of(last)
        whole_group = bool(group_name) and user_id is None
        shapes.append((user_id is not None, group_name is not None, whole_group))
        values.update({f"span{n}": span, f"first{n}": first, f"last{n}": last, **owner})
    if opening is not None and not open_unread(*opening[:2], now):
        opening = None
    dialect = db.engine.dialect.name
    opened = None if opening is None else (opening[0] is not None, opening[1] is not None)
    key = (dialect, tuple(shapes), opened, opening is not None and opening[2])
    statement = _STATEMENTS.get(key)
    if statement is None:
        statement = _STATEMENTS[key] = _statement(dialect, shapes, opening)
    if opening is not None:
        values.update(owner_values(*opening[:2]), **open_values(now))
    found = [Hours() for _ in asked]
    skip = _OPEN_COLUMNS if opening is not None else 0
    open_rows = []
    for row in run(statement, values):
        if skip and row[skip] is None:  # no model: a row of what the totals do not hold yet
            open_rows.append(row[:skip])
            continue
        model, *sums = row[skip:]
        for n, total in enumerate(found):
            cores, memory, gpus = sums[3 * n : 3 * n + 3]
            if cores is not None or gpus is not None:
                total.add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    if opening is not None:
        keep_summed(opening[0], opening[1], intervals_of(open_rows, now), opening[2])
    return [
        add_open(total, start, now, **owner)
        for total, (owner, start) in zip(found, asked, strict=True)
    ]


def _statement(dialect: str, shapes: list[tuple[bool, bool, bool]], opening):
    """Per model, each asked owner and period's sums (three columns each), as ``used_since``
    sums them one statement each; with ``opening``, after the rows of what the totals do not
    hold yet of that owner (their columns first, NULL in the totals' rows).

    Each owner and period's condition is written twice (it picks the rows, and marks those of
    its sums), and the totals are named short: the statement stays under the length
    PostgreSQL's driver keeps converted (psycopg converts a statement longer than 4 KB anew
    at each run, at a millisecond's cost)."""
    t = UsageTotal.__table__.alias("t")
    user_id, group_name = bindparam("user_id"), bindparam("group_name")
    conditions = []
    for n, (has_user, has_group, whole_group) in enumerate(shapes):
        conditions.append(
            and_(
                t.c.span == bindparam(f"span{n}"),
                t.c.start >= bindparam(f"first{n}"),
                t.c.start <= bindparam(f"last{n}"),
                *owner_where(t.c, user_id if has_user else None, group_name if has_group else None),
                *whose_rows(user_id if has_user else None, whole_group, t.c),
            ).label(f"a{n}")
        )
    rows = (
        select(t.c.gpu_model, t.c.core_hours, t.c.memory_gb_hours, t.c.gpu_hours, *conditions)
        .where(or_(*[condition.element for condition in conditions]))
        .subquery("r")
    )
    r = rows.c
    columns = [
        func.sum(case((r[f"a{n}"], column)))
        for n in range(len(shapes))
        for column in (r.core_hours, r.memory_gb_hours, r.gpu_hours)
    ]
    if opening is None:
        return select(r.gpu_model, *columns).group_by(r.gpu_model)
    totals = select(*[null()] * _OPEN_COLUMNS, r.gpu_model, *columns).group_by(r.gpu_model)
    owner = (opening[0] is not None, opening[1] is not None, opening[2])
    padding = (String, *[Float] * len(columns))
    opened = open_selects(dialect, owner, padding=padding, named=True)
    return union_all(*opened, totals)
