"""The longest wait: a request that waited ``LINE_MAX_WAIT`` is dropped from its line, with a
notice, by the admission pass (``admission``) before it plans."""

from __future__ import annotations

from sqlalchemy import or_, select

from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.lines import wording
from app.lines.models import LineEntry
from app.lines.operations import NotWaiting, held_entry, out_of_line


def drop_overdue(now=None) -> int:
    """Drop every request that waited LINE_MAX_WAIT, with a notice; commits each. Returns
    how many were dropped."""
    now = now or utcnow()
    # Due, and places left behind by a request deleted from its page (``held_entry`` clears).
    due = list(
        db.session.scalars(
            select(LineEntry.deployment_id)
            .join(Deployment, Deployment.id == LineEntry.deployment_id)
            .where(
                or_(
                    LineEntry.expires_at <= now,
                    Deployment.status != Status.WAITING,
                    Deployment.deleted.is_(True),
                )
            )
        )
    )
    db.session.rollback()
    dropped = 0
    for deployment_id in due:
        try:
            entry = held_entry(deployment_id)
        except NotWaiting:
            continue
        if entry.expires_at > now:
            db.session.rollback()
            continue
        out_of_line(
            entry,
            Status.NOT_LAUNCHED,
            source="portal",
            reason=wording.DROPPED,
            kind=wording.DROPPED_KIND,
        )
        db.session.commit()
        dropped += 1
    return dropped
