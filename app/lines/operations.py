"""What people do with the line once they wait in it: leave it; what operators do, and a
group's managers to the requests charged to their group: move a request or remove it, with a
reason the owner is told (who may is the deployments' access policy's ``Action.STEER``, asked
by ``listing.steerable``). Each operation commits. (Joining the
line is ``joining``'s, and whether a request waits is the launch decision's.)

A request's row is locked before it leaves the line (``app.locks.lock_rows``), and the
admission pass takes the same lock, so a request leaves the line once: admitted, left,
dropped or removed, whichever comes first.
"""

from __future__ import annotations

from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.deployments.timeline import actor_source, record_event
from app.errors import PortalError
from app.extensions import db
from app.lines import changing, places, wording
from app.lines.changing import NotWaiting as NotWaiting  # callers catch it here
from app.lines.models import LineEntry


def held_entry(deployment_id: int) -> LineEntry:
    """Lock ``deployment_id``'s row for this transaction and return its line entry.

    Raises NotWaiting (rolled back) when it no longer waits.
    """
    entry, deployment = changing.locked_request(deployment_id)
    if entry is not None and (deployment.status != Status.WAITING or deployment.deleted):
        # Left some other way (deleted from its page): its place goes too.
        db.session.delete(entry)
        db.session.commit()
        entry = None
    if entry is None or deployment is None:
        db.session.rollback()
        raise NotWaiting(_("This request no longer waits in line: it has started, or left it."))
    return entry


def out_of_line(entry: LineEntry, status: str, **event) -> Deployment:
    deployment = entry.deployment
    record_event(deployment, status, **event)
    deployment.status_reason = event.get("reason")
    db.session.delete(entry)
    return deployment


def leave(actor: User, deployment: Deployment) -> Deployment:
    """Take ``deployment`` out of the line at its owner's (or an admin's) request: nothing is
    launched and the row leaves the list; commits. Raises NotWaiting."""
    entry = held_entry(deployment.id)
    left = out_of_line(
        entry,
        Status.NOT_LAUNCHED,
        source=actor_source(actor, entry.deployment),
        actor=actor,
        reason=wording.LEFT,
        kind=wording.LEFT_KIND,
    )
    left.deleted, left.deleted_at = True, utcnow()
    db.session.commit()
    return left


def _steered_by(actor: User, deployment: Deployment, **details) -> dict:
    """The timeline's source and details of a move or removal by ``actor``: an operator acts
    as "admin"; a manager of the request's group as "manager", named with the group, so that
    the owner is told who did it."""
    if actor.is_operator or actor.is_admin:
        return {"source": "admin", "details": details}
    return {
        "source": "manager",
        "details": {**details, "manager": actor.username, "group": deployment.group_name},
    }


def remove(actor: User, deployment: Deployment, reason: str) -> Deployment:
    """An operator (or a manager of its group) takes ``deployment`` out of the line, saying
    why (the owner is told); commits. Raises NotWaiting, or PortalError without a reason.
    Whether ``actor`` may is asked before (``listing.steerable``)."""
    reason = _reason(reason)
    entry = held_entry(deployment.id)
    steered = _steered_by(actor, entry.deployment, reason=reason)
    removed = out_of_line(
        entry,
        Status.NOT_LAUNCHED,
        actor=actor,
        reason=wording.REMOVED if steered["source"] == "admin" else wording.REMOVED_BY_MANAGER,
        kind=wording.REMOVED_KIND,
        **steered,
    )
    db.session.commit()
    return removed


def move(actor: User, deployment: Deployment, place: int, reason: str) -> int:
    """An operator (or a manager of its group) moves ``deployment`` to ``place`` (1 = first)
    in its line, saying why (the owner is told); commits and returns the place it has now.
    Raises NotWaiting, or PortalError for a reason or place missing. Whether ``actor`` may is
    asked before (``listing.steerable``)."""
    reason = _reason(reason)
    if not isinstance(place, int) or place < 1:
        raise PortalError(_("Give the new place as a whole number, 1 for the first."), "place")
    entry = held_entry(deployment.id)
    others = [
        key
        for key, entry_id in db.session.execute(
            select(places.sort_clause(), LineEntry.deployment_id)
            .where(LineEntry.line == entry.line, LineEntry.deployment_id != entry.deployment_id)
            .order_by(places.sort_clause(), LineEntry.deployment_id)
        )
    ]
    place = min(place, len(others) + 1)
    if not others:
        entry.placed_at = entry.placed_at or entry.fair_at
    elif place == 1:
        entry.placed_at = others[0] - timedelta(seconds=1)
    elif place > len(others):
        entry.placed_at = others[-1] + timedelta(seconds=1)
    else:
        before, after = others[place - 2], others[place - 1]
        entry.placed_at = before + (after - before) / 2
    record_event(
        entry.deployment,
        None,
        actor=actor,
        kind=wording.MOVED_KIND,
        **_steered_by(actor, entry.deployment, reason=reason, to=place),
    )
    db.session.commit()
    return place


def _reason(reason: str | None) -> str:
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise PortalError(_("Say why: the owner of the request is told."), "reason")
    return reason[:500]
