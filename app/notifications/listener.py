"""Writing the outbox: a notification for each new timeline entry worth telling its owner.

A session listener sees every DeploymentEvent about to be flushed and adds its notification
to the same flush, so both land in one transaction, or neither does. Features that record
events (deployments, leases) need not know this one exists.
"""

from __future__ import annotations

from flask import current_app
from sqlalchemy import event as sqlalchemy_event
from sqlalchemy.orm import Session

from app.auth.models import User
from app.clock import utcnow
from app.deployments import presenters
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.notifications import kinds
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, Notification
from app.notifications.preferences import email_kinds


def init_listener() -> None:
    """Watch the portal's sessions for new timeline entries (once, however many apps exist)."""
    if not sqlalchemy_event.contains(db.session, "before_flush", _write_outbox):
        sqlalchemy_event.listen(db.session, "before_flush", _write_outbox)


def _write_outbox(session: Session, _context, _instances) -> None:
    for obj in list(session.new):
        if isinstance(obj, DeploymentEvent):
            notification = notification_for(session, obj)
            if notification is not None:
                session.add(notification)


def notification_for(session: Session, event: DeploymentEvent) -> Notification | None:
    """The notification ``event`` causes, not yet added to the session; None if none."""
    deployment = event.deployment
    if deployment is None and event.deployment_id is not None:
        deployment = session.get(Deployment, event.deployment_id)
    if deployment is None:
        return None
    kind = kinds.kind_for(event, deployment.user_id)
    if kind is None:
        return None
    details = {
        "name": deployment.name or deployment.template_name,
        **(event.details or {}),
        **_particulars(kind, event, deployment),
    }
    notification = Notification(
        user_id=deployment.user_id,
        deployment=deployment,
        event=event,
        kind=kind,
        details=details,
        created_at=utcnow(),
    )
    _address(session, notification, deployment)
    return notification


def _particulars(kind: str, event: DeploymentEvent, deployment: Deployment) -> dict:
    if kind == kinds.READY:
        return {"link": access_link(deployment)}
    if kind in (kinds.FAILED, kinds.DELETE_FAILED):
        # The plain sentence about the reason is found when the notice is read, in the
        # reader's language (see ``wording``).
        return {"reason": event.reason or deployment.status_reason}
    return {}


def access_link(deployment: Deployment) -> str | None:
    """The deployment's main way in, as its page shows it (None while it has none)."""
    outputs = presenters.shown_outputs([deployment]).get(deployment.id, [])
    link = presenters.main_link(outputs)
    return link.value if link is not None else None


def _address(session: Session, notification: Notification, deployment: Deployment) -> None:
    """Queue the e-mail when a mail server is configured and the owner wants this kind."""
    notification.mail_status = MAIL_NONE
    if not current_app.config.get("MAIL_SERVER"):
        return
    # By id: a deployment added in this very flush has not loaded its relationships.
    owner = session.get(User, deployment.user_id)
    if owner is None or not owner.email or not owner.active:
        return
    if notification.kind not in email_kinds(owner.id):
        return
    notification.mail_status, notification.mail_to = MAIL_QUEUED, owner.email
    notification.mail_next_at = utcnow()
