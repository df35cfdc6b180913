"""Deployments stuck in deleting: a delete at expiry the orchestrator refused, or any delete
that failed, for the admins' list."""

from __future__ import annotations

from sqlalchemy import or_, select

from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.leases.models import DELETE_FAILED, Lease
from app.leases.wording import problem_shown


def stuck_deployments(limit: int = 100) -> list[tuple[Deployment, str | None]]:
    """Deployments not deleted whose delete failed, newest first, with the lease's problem."""
    rows = db.session.execute(
        select(Deployment, Lease.problem)
        .outerjoin(Lease, Lease.deployment_id == Deployment.id)
        .where(
            Deployment.deleted.is_(False),
            or_(Deployment.status == Status.DELETE_FAILED, Lease.state == DELETE_FAILED),
        )
        .order_by(Deployment.updated_at.desc())
        .limit(limit)
    ).all()
    return [
        (deployment, problem_shown(problem) or deployment.status_reason)
        for deployment, problem in rows
    ]
