"""What the budgets a launch meets have used in their periods, read together: the totals of
every owner and period in one statement, and what runs now of the person and of the group in
one reading. The figures are ``usage_totals.used_since``'s for each owner and period; the
rules of what is read (whose rows, which span) are that module's."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, bindparam, case, func, or_, select

from app.quotas.usage_marks import month_of
from app.quotas.usage_models import DAY, MONTH, UsageTotal
from app.quotas.usage_reading import owner_where, run
from app.quotas.usage_totals import Hours, add_open, whose_rows

# The statement of each shape of owners and periods, built once: building it costs more than
# running it, and it is asked at every cost box that meets a budget.
_STATEMENTS: dict[tuple, object] = {}


def used_by_period(asked: list[tuple[dict, datetime]], now: datetime) -> list[Hours]:
    """The hours each (owner, period start) of ``asked`` used from its start to ``now``, the
    owner given as the totals' columns ({"user_id": 7}, {"group_name": "physics"} or both);
    inside ``usage_totals.one_reading`` of ``now``, what runs is read once per owner."""
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
    key = tuple(shapes)
    statement = _STATEMENTS.get(key)
    if statement is None:
        statement = _STATEMENTS[key] = _statement(shapes)
    found = [Hours() for _ in asked]
    for model, *sums in run(statement, values):
        for n, total in enumerate(found):
            cores, memory, gpus = sums[3 * n : 3 * n + 3]
            if cores is not None or gpus is not None:
                total.add(model, cores or 0.0, memory or 0.0, gpus or 0.0)
    return [
        add_open(total, start, now, **owner)
        for total, (owner, start) in zip(found, asked, strict=True)
    ]


def _statement(shapes: list[tuple[bool, bool, bool]]):
    """Per model, each asked owner and period's sums (three columns each), as ``used_since``
    sums them one statement each."""
    t = UsageTotal
    user_id, group_name = bindparam("user_id"), bindparam("group_name")
    conditions, columns = [], []
    for n, (has_user, has_group, whole_group) in enumerate(shapes):
        condition = and_(
            t.span == bindparam(f"span{n}"),
            t.start >= bindparam(f"first{n}"),
            t.start <= bindparam(f"last{n}"),
            *owner_where(t, user_id if has_user else None, group_name if has_group else None),
            *whose_rows(user_id if has_user else None, whole_group),
        )
        conditions.append(condition)
        for column in (t.core_hours, t.memory_gb_hours, t.gpu_hours):
            columns.append(func.sum(case((condition, column))))
    return select(t.gpu_model, *columns).where(or_(*conditions)).group_by(t.gpu_model)
