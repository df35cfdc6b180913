"""A deployment's timeline: every status change and every action taken on it, with its source."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.auth.models import User
from app.deployments.access import relations
from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.status import Status
from app.extensions import db, listen_once
from app.instruments import observe_ready

SOURCES = frozenset(
    {"launch", "callback", "sync", "user", "co-owner", "manager", "admin", "portal"}
)
# The source of an action by someone, by their closest relation that acts (``access``).
_ACTING = {"owner": "user", "co-owner": "co-owner", "manager": "manager", "admin": "admin"}


def actor_source(actor: User, deployment: Deployment) -> str:
    """How an action by ``actor`` is recorded: "user" for the owner, "co-owner" or "manager"
    for them, "admin" for an admin or operator acting on someone else's deployment."""
    if actor.id == deployment.user_id:
        return "user"
    for relation in relations(actor, deployment):
        if relation in _ACTING:
            return _ACTING[relation]
    return "admin"


def record_event(
    deployment: Deployment,
    to_status: str | None,
    *,
    source: str,
    reason: str | None = None,
    actor: User | None = None,
    kind: str | None = None,
    details: dict | None = None,
) -> DeploymentEvent:
    """Add a timeline entry from the deployment's current status to ``to_status`` and set it.

    ``to_status`` equal to the current status records an action without a change (e.g. a delete
    asked for); ``kind`` and ``details`` name an event that is not a status change. The entry is
    added to the session; the caller commits. Raises ValueError for an unknown ``source``.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown timeline source: {source!r}")
    event = DeploymentEvent(
        from_status=deployment.status,
        to_status=to_status,
        reason=reason,
        source=source,
        actor_id=actor.id if actor is not None else None,
        kind=kind,
        details=details,
    )
    deployment.events.append(event)
    if to_status is not None:
        deployment.status = to_status
    return event


def change_status(
    deployment: Deployment, to_status: str, *, source: str, reason: str | None = None
) -> bool:
    """Set the status, with a timeline entry when it really changes; True if it did.

    A callback and the sync worker may learn the same change at the same moment in two
    processes: the change is made only from the status this process read, so the second one
    finds it done and records nothing. For the same reason the time from launch to ready is
    observed here, by the one process that made the change, once it is committed.
    """
    if deployment.status == to_status:
        return False
    if deployment.id is not None:
        moved = db.session.execute(
            update(Deployment)
            .where(Deployment.id == deployment.id, Deployment.status == deployment.status)
            .values(status=to_status)
            .execution_options(synchronize_session=False)
        ).rowcount
        if not moved:
            db.session.refresh(deployment, attribute_names=["status"])
            if deployment.status == to_status:
                return False
            return change_status(deployment, to_status, source=source, reason=reason)
    record_event(deployment, to_status, source=source, reason=reason)
    if to_status == Status.READY and not deployment.adopted:
        # Adopted rows were recorded when found, not when launched: no launch time to measure.
        template, launched_at = deployment.template_slug, deployment.created_at
        _after_commit(lambda: observe_ready(template, launched_at))
    return True


_PENDING = "timeline_after_commit"


def _after_commit(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the current transaction commits; never if it rolls back."""
    db.session.info.setdefault(_PENDING, []).append(callback)


def listen() -> None:
    """Run what ``_after_commit`` kept once its transaction commits; drop it on a rollback."""
    listen_once(Session, "after_commit", _run_pending)
    listen_once(Session, "after_soft_rollback", _drop_pending)


def _run_pending(session: Session) -> None:
    for callback in session.info.pop(_PENDING, []):
        callback()


def _drop_pending(session: Session, previous_transaction) -> None:
    if not previous_transaction.nested:
        session.info.pop(_PENDING, None)
