"""Writing the outbox: a notification for each new timeline entry worth telling its owner.

A session listener sees every DeploymentEvent about to be flushed and adds its notification
to the same flush, so both land in one transaction, or neither does. Features that record
events (deployments, leases) need not know this one exists.
"""

from __future__ import annotations

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth.models import User
from app.clock import utcnow
from app.deployments import presenters
from app.deployments.jobs import is_job
from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.sharing import co_owners
from app.extensions import db, listen_once
from app.i18n import LANGUAGES
from app.notifications import kinds
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, Notification
from app.notifications.preferences import email_kinds
from app.tosca.display import is_private_key


def listen() -> None:
    """Watch the portal's sessions for new timeline entries."""
    listen_once(db.session, "before_flush", _write_outbox)


def _write_outbox(session: Session, _context, _instances) -> None:
    for obj in list(session.new):
        if isinstance(obj, DeploymentEvent):
            notification = notification_for(session, obj)
            if notification is not None:
                session.add(notification)
                for copy in _for_co_owners(session, notification):
                    session.add(copy)


# What a deployment's co-owners are told too, each by their own choices and in their language:
# that its time runs out, is up, and that it was deleted for it.
CO_OWNERS_TOLD = frozenset({kinds.LEASE_WARNING, kinds.LEASE_EXPIRED, kinds.LEASE_DELETED})


def _for_co_owners(session: Session, told: Notification) -> list[Notification]:
    """The same notice for each co-owner of its deployment, for the kinds co-owners share."""
    if told.kind not in CO_OWNERS_TOLD or told.deployment is None:
        return []
    with session.no_autoflush:
        people = co_owners(told.deployment)
    copies = []
    for person in people:
        # The entry's own notice is its owner's (one per entry); a copy names only the
        # deployment, and is written in the same flush as the entry, so never twice.
        copy = Notification(
            user_id=person.id,
            deployment=told.deployment,
            kind=told.kind,
            details=dict(told.details or {}),
            created_at=told.created_at,
        )
        _address(session, copy, told.deployment, person)
        copies.append(copy)
    return copies


def notification_for(session: Session, event: DeploymentEvent) -> Notification | None:
    """The notification ``event`` causes its deployment's owner, not yet added to the
    session; None if none."""
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
    # A batch job is told that it succeeded or failed, not that it is ready (see ``wording``).
    job = {"job": True} if is_job(deployment) else {}
    if kind == kinds.READY:
        return {"link": access_link(deployment), "access": access_details(deployment), **job}
    if kind in (kinds.FAILED, kinds.DELETE_FAILED):
        # The plain sentence about the reason is found when the notice is read, in the
        # reader's language (see ``wording``).
        return {"reason": event.reason or deployment.status_reason, **job}
    return {}


def access_link(deployment: Deployment) -> str | None:
    """The deployment's main way in, as its page shows it (None while it has none)."""
    outputs = presenters.shown_outputs([deployment]).get(deployment.id, [])
    link = presenters.main_link(outputs)
    return link.value if link is not None else None


# The outputs a ready notice repeats: addresses and commands, one line each. Whatever the
# template marks secret is sealed apart and never reaches ``shown_outputs``; a private key or a
# password that a template left unmarked is still kept out (``display.is_private_key`` and the
# label's own word), since a mail travels where the portal cannot follow.
_ACCESS_SHOWS = frozenset({"link", "copy", "ssh"})
_SECRET_WORDS = ("cred", "password", "passwd", "pwd", "secret", "token", "key")


def access_details(deployment: Deployment) -> list[dict]:
    """The non-secret ways in the deployment's page shows: its links, addresses and ``ssh``
    line, each with its ``name``, ``show``, ``text`` and the template's own ``labels`` by
    language (the notice is read later, in its reader's language)."""
    parsed = presenters.parsed_templates(
        {deployment.revision_id} if deployment.revision_id else set()
    )
    template = parsed.get(deployment.revision_id)
    details = []
    for output in presenters.shown_outputs([deployment], parsed).get(deployment.id, []):
        if output.show not in _ACCESS_SHOWS or not isinstance(output.value, str):
            continue
        if is_private_key(output.value) or any(w in output.name.lower() for w in _SECRET_WORDS):
            continue
        if "\n" in output.text or not output.text.strip():
            continue
        item = {"name": output.name, "show": output.show, "text": output.text}
        if template is not None:
            item["labels"] = _labels(template, output.name)
        details.append(item)
    return details


def _labels(template, name: str) -> dict[str, str]:
    found = {}
    for language in LANGUAGES:
        spec = next((o for o in template.localised(language).outputs if o.name == name), None)
        if spec is not None and spec.label:
            found[language] = spec.label
    return found


def _address(
    session: Session, notification: Notification, deployment: Deployment, reader: User | None = None
) -> None:
    """Queue the e-mail when a mail server is configured and its reader (the owner unless
    given) wants this kind."""
    notification.mail_status = MAIL_NONE
    if not current_app.config.get("MAIL_SERVER"):
        return
    # By id: a deployment added in this very flush has not loaded its relationships.
    owner = reader or session.get(User, deployment.user_id)
    waited = notification.kind == kinds.READY and _waited_in_line(session, deployment)
    queue_mail(notification, owner, waited_in_line=waited)


def queue_mail(notification: Notification, reader: User | None, *, waited_in_line=False) -> None:
    """Queue ``notification``'s e-mail to ``reader`` when a mail server is configured and
    they have an address, may log in, and want its kind (``kinds.mailed``); otherwise it is
    shown in the portal only."""
    notification.mail_status = MAIL_NONE
    if not current_app.config.get("MAIL_SERVER"):
        return
    if reader is None or not reader.email or not reader.active:
        return
    if not kinds.mailed(notification.kind, email_kinds(reader.id), waited_in_line=waited_in_line):
        return
    notification.mail_status, notification.mail_to = MAIL_QUEUED, reader.email
    notification.mail_next_at = utcnow()


def _waited_in_line(session: Session, deployment: Deployment) -> bool:
    """Whether ``deployment`` waited in line before it started (its timeline says so)."""
    with session.no_autoflush:
        kinds_seen = session.scalars(
            select(DeploymentEvent.kind).where(
                DeploymentEvent.deployment_id == deployment.id,
                DeploymentEvent.kind.is_not(None),
            )
        )
        return kinds.started_from_line(kinds_seen)
