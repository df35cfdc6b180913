"""What an owner's running deployments will still use of a budget (``Committed``): the
launch knows their ends from the leases and sums it in the database
(``app.launch.constraints.budget.committed_hours``); ``committed_by_ends`` works it out
deployment by deployment from any ``lease_ends``, the plain statement of the same rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from sqlalchemy import select

from app.extensions import db
from app.quotas.usage_models import UsageMark
from app.quotas.usage_totals import Hours

# What the owner's running deployments will still use: ``committed(owner, now, until,
# together)``, the owner given as the marks' columns ({"user_id": 7}, {"group_name":
# "physics"} or both), up to ``until`` (None: to their ends); ``together`` (None, or the
# person and the group as both columns) names the owners the caller asks about in turn, which
# an answer may read at once.
Committed = Callable[[dict, datetime, datetime | None, dict | None], Hours]


def committed_by_ends(
    lease_ends: Callable[[Iterable[int]], Mapping[int, datetime | None]],
) -> Committed:
    """``committed`` worked out deployment by deployment from their ends (``lease_ends``: None
    for one that never ends, which then counts only what it used)."""

    def committed(
        owner: dict, now: datetime, until: datetime | None, together: dict | None = None
    ) -> Hours:
        where = [getattr(UsageMark, key) == value for key, value in owner.items()]
        marks = db.session.execute(select(UsageMark.__table__).where(*where)).all()
        ends = lease_ends([mark.deployment_id for mark in marks]) if marks else {}
        total = Hours()
        for mark in marks:
            end = ends.get(mark.deployment_id)
            if end is None:
                continue
            end = min(end, until) if until else end
            hours = max((end - now) / timedelta(hours=1), 0.0)
            total.core_hours += mark.cores * hours
            for model, count in (mark.gpu_models or {}).items():
                total.gpu_hours[model] = total.gpu_hours.get(model, 0.0) + count * hours
        return total

    return committed
