"""A deployment's timeline as the page shows it: each entry a named step, worded when shown.

Entries keep what happened (statuses, a kind and its details, a reason); the words come now,
in the reader's language: the portal's own stored sentences are translated (``words.said``),
the orchestrator's reasons are shown as it gave them, and features above this one word the
kinds of entry they record (a lease's start, extension, end) through the ``EVENT_WORDS``
extension point (``app.extension_points``), filled at start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, select

from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.presenters import status_look
from app.deployments.words import said
from app.extension_points import EVENT_WORDS
from app.extensions import db

SOURCE_WORDS = {
    "launch": _l("launch"),
    "callback": _l("orchestrator notice"),
    "sync": _l("status check"),
    "user": _l("owner"),
    "co-owner": _l("co-owner"),
    "manager": _l("group manager"),
    "admin": _l("administrator"),
    "portal": _l("the portal"),
}


@dataclass(frozen=True)
class Step:
    """One timeline entry as a named step."""

    at: Any
    title: str
    tone: str
    by: str
    reason: str | None = None


@cache
def _events_statement():
    # Built once and kept (the deployment page and its poll ask at each showing). The table's
    # columns a step is worded from, rather than records: an entry is only shown from here,
    # and plain rows read through the session's connection cost a fraction of records.
    # Nothing flushes the session first: entries are added through the deployment's
    # collection (``timeline.record_event``), which ``events_of`` then reads instead.
    event = DeploymentEvent.__table__.c
    return (
        select(
            event.at,
            event.from_status,
            event.to_status,
            event.reason,
            event.source,
            event.actor_id,
            event.kind,
            event.details,
        )
        .where(event.deployment_id == bindparam("deployment_id"))
        .order_by(event.at, event.id)
    )


def events_of(deployment: Deployment) -> Sequence:
    """The deployment's timeline entries, oldest first, each with the columns of a
    DeploymentEvent: the ones this request holds when it has them (it may have added one),
    else read from the database."""
    if "events" in deployment.__dict__:
        return deployment.events
    return (
        db.session.connection().execute(_events_statement(), {"deployment_id": deployment.id}).all()
    )


def timeline(events: Sequence, people: dict[int, str] | None = None, looks=None) -> list:
    """Timeline entries (``events_of``) as steps, in their order; ``people`` names actors by
    id, and ``looks`` words a status (``status_look`` unless given, e.g. a batch job's words)."""
    wordings = EVENT_WORDS.each()
    return [_step(e, people or {}, looks or status_look, wordings) for e in events]


def _feature_words(event: DeploymentEvent, wordings) -> tuple[str, str | None] | None:
    for words in wordings:
        found = words(event)
        if found is not None:
            return found
    return None


def _step(event: DeploymentEvent, people: dict[int, str], looks, wordings) -> Step:
    look = looks(event.to_status) if event.to_status else None
    changed = bool(event.to_status and event.to_status != event.from_status)
    worded = _feature_words(event, wordings)
    if worded is not None:
        title, reason = worded
        if changed:  # the status names the step; the feature's words say why
            title, reason = look.label, reason or title
    else:
        reason = (said(event.reason) or "").strip() or None
        if changed:
            title = look.label
        elif reason:
            # An action without a status change: its reason's first sentence names the step.
            title, _dot, rest = reason.partition(". ")
            title, reason = title.rstrip("."), rest.strip() or None
        else:
            title = _("Noted")
    by = str(SOURCE_WORDS.get(event.source, event.source))
    if event.actor_id and event.actor_id in people:
        by = _("%(source)s by %(person)s", source=by, person=people[event.actor_id])
    return Step(event.at, str(title), look.tone if look else "secondary", by, reason)
