"""Usage over time: core-hours and GPU-hours (by model) per user and per group, per month.

Each deployment's charge is multiplied by the hours it held resources (see
``app.quotas.holding``) within each calendar month (UTC). Holding starts when the deployment
was submitted (or recorded) and ends when it was deleted or its status stopped holding; one
still holding counts up to now.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.orm import load_only

from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.status import Status
from app.extensions import db
from app.quotas.holding import FAILED, RELEASED_STATUSES, holds


@dataclass
class MonthUsage:
    """Hours used by one owner (a user's name or a group) in one month (``"2026-11"``)."""

    month: str
    owner: str
    core_hours: float = 0.0
    gpu_hours: float = 0.0
    gpu_hours_by_model: dict[str, float] = field(default_factory=dict)


def month_starts(count: int, now: datetime | None = None) -> list[datetime]:
    """The first instants of the last ``count`` months, oldest first, this month included."""
    now = now or utcnow()
    year, month = now.year, now.month
    starts = []
    for _ in range(count):
        starts.append(datetime(year, month, 1))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return starts[::-1]


def _next_month(start: datetime) -> datetime:
    return datetime(start.year + start.month // 12, start.month % 12 + 1, 1)


def _ever_held():
    """Leaves out what never held anything though it carries a charge: a request that waited
    in line and left it (or waits still) was never submitted."""
    return or_(
        Deployment.submitted_at.is_not(None),
        Deployment.status.not_in([Status.WAITING, Status.NOT_LAUNCHED]),
    )


def _ends(deployments: list[Deployment]) -> dict[int, datetime]:
    """When each deployment that no longer holds stopped holding, from its timeline."""
    stopped = [d.id for d in deployments if not holds(d)]
    if not stopped:
        return {}
    rows = db.session.execute(
        select(DeploymentEvent.deployment_id, func.min(DeploymentEvent.at))
        .where(
            DeploymentEvent.deployment_id.in_(stopped),
            DeploymentEvent.to_status.in_([*RELEASED_STATUSES, FAILED]),
        )
        .group_by(DeploymentEvent.deployment_id)
    )
    return dict(rows.all())


def monthly_usage(
    months: int = 6,
    *,
    by: str = "user",
    user_id: int | None = None,
    now: datetime | None = None,
) -> list[MonthUsage]:
    """Core-hours and GPU-hours per month for the last ``months`` months, per user (``by``
    "user", owner = username) or per group charged (``by`` "group"), optionally for one
    user only. Sorted by month, then owner."""
    now = now or utcnow()
    starts = month_starts(months, now)
    period_start = starts[0]
    query = (
        select(Deployment, User.username)
        .join(User, User.id == Deployment.user_id)
        # Only what the sums need: a deployment's template text and outputs can be large.
        .options(
            load_only(
                Deployment.id,
                Deployment.charge,
                Deployment.group_name,
                Deployment.status,
                Deployment.deleted,
                Deployment.keeps_failed_attempt,
                Deployment.runs_once,
                Deployment.created_at,
                Deployment.submitted_at,
                Deployment.deleted_at,
                Deployment.updated_at,
                raiseload=True,
            )
        )
        .where(
            Deployment.created_at < now,
            or_(Deployment.deleted_at.is_(None), Deployment.deleted_at >= period_start),
            or_(
                Deployment.charge["cores"].as_float() > 0, Deployment.charge["gpus"].as_float() > 0
            ),
            _ever_held(),
        )
    )
    if user_id is not None:
        query = query.where(Deployment.user_id == user_id)
    if by == "group":
        query = query.where(Deployment.group_name.is_not(None))
    rows = db.session.execute(query).all()
    ends = _ends([d for d, _ in rows])
    totals: dict[tuple[str, str], MonthUsage] = {}
    for deployment, username in rows:
        owner = username if by == "user" else deployment.group_name
        start = deployment.submitted_at or deployment.created_at
        if holds(deployment):
            end = now
        else:
            end = deployment.deleted_at or ends.get(deployment.id) or deployment.updated_at
        _spread(totals, owner, deployment.charge or {}, start, min(end, now), starts)
    return sorted(totals.values(), key=lambda u: (u.month, u.owner))


def recent_gpu_hours(user_id: int, since: datetime, now: datetime | None = None) -> float:
    """The GPU-hours ``user_id``'s deployments held between ``since`` and ``now``, by the same
    rule as the monthly sums (the waiting line's fair share reads it)."""
    now = now or utcnow()
    query = (
        select(Deployment)
        .options(
            load_only(
                Deployment.id,
                Deployment.charge,
                Deployment.status,
                Deployment.deleted,
                Deployment.keeps_failed_attempt,
                Deployment.runs_once,
                Deployment.created_at,
                Deployment.submitted_at,
                Deployment.deleted_at,
                Deployment.updated_at,
                raiseload=True,
            )
        )
        .where(
            Deployment.user_id == user_id,
            Deployment.created_at < now,
            or_(Deployment.deleted_at.is_(None), Deployment.deleted_at >= since),
            Deployment.charge["gpus"].as_float() > 0,
            _ever_held(),
        )
    )
    deployments = list(db.session.scalars(query))
    ends = _ends(deployments)
    hours = 0.0
    for deployment in deployments:
        start = max(deployment.submitted_at or deployment.created_at, since)
        if holds(deployment):
            end = now
        else:
            end = deployment.deleted_at or ends.get(deployment.id) or deployment.updated_at
        held = (min(end, now) - start) / timedelta(hours=1)
        if held > 0:
            hours += held * float(deployment.charge.get("gpus") or 0)
    return hours


def _spread(totals, owner, charge, start, end, starts) -> None:
    cores = float(charge.get("cores") or 0)
    models = charge.get("gpu_models") or {}
    for month_start in starts:
        month_end = _next_month(month_start)
        overlap = (min(end, month_end) - max(start, month_start)) / timedelta(hours=1)
        if overlap <= 0:
            continue
        key = (month_start.strftime("%Y-%m"), owner)
        usage = totals.setdefault(key, MonthUsage(*key))
        usage.core_hours += cores * overlap
        for model, count in models.items():
            hours = float(count) * overlap
            usage.gpu_hours += hours
            usage.gpu_hours_by_model[model] = usage.gpu_hours_by_model.get(model, 0.0) + hours


def per_month(usages: Iterable[MonthUsage], months: list[str]) -> list[dict]:
    """Totals over owners for each of ``months``: ``{"month", "core_hours", "gpu_hours"}``."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for usage in usages:
        sums[usage.month][0] += usage.core_hours
        sums[usage.month][1] += usage.gpu_hours
    return [{"month": m, "core_hours": sums[m][0], "gpu_hours": sums[m][1]} for m in months]


def csv_rows(usages: Iterable[MonthUsage], kind: str) -> Iterable[list]:
    """Rows for the CSV export: month, owner kind, owner, resource, hours (two decimals)."""
    for usage in usages:
        yield [usage.month, kind, usage.owner, "cores", f"{usage.core_hours:.2f}"]
        for model, hours in sorted(usage.gpu_hours_by_model.items()):
            yield [usage.month, kind, usage.owner, f"gpu:{model}", f"{hours:.2f}"]
