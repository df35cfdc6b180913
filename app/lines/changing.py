"""One change at a time of a waiting request: two browser tabs changing the same request would
otherwise each make a request of their own (one keeping the place, the other joining at the
end). The change claims the request first, under its row's lock, and the second is refused in
words. A claim ends with the change (the request leaves the line, or the claim is let go when
the change fails) and in any case after ``CLAIM``, so a change cut short never blocks another.
Each function commits."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlalchemy import select

from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.errors import PortalError
from app.extensions import db
from app.lines.models import LineEntry
from app.locks import lock_rows

CLAIM = timedelta(minutes=2)
# Where the claim is kept: the entry's options, until when (ISO 8601, UTC).
_KEY = "changing_until"


class NotWaiting(PortalError):
    """The request no longer waits in line (it started, or left it)."""

    status_code = 409


class ChangeUnderway(PortalError):
    """Another change of the same waiting request is under way."""

    status_code = 409


def locked_request(deployment_id: int) -> tuple[LineEntry | None, Deployment | None]:
    """Lock ``deployment_id``'s row for this transaction; its line entry and its record, read
    fresh (what another process changed before the lock counts)."""
    lock_rows(select(Deployment.id).where(Deployment.id == deployment_id))
    entry = db.session.scalar(
        select(LineEntry)
        .where(LineEntry.deployment_id == deployment_id)
        .execution_options(populate_existing=True)
    )
    return entry, db.session.get(Deployment, deployment_id, populate_existing=True)


def _locked(deployment_id: int, user_id: int) -> LineEntry | None:
    entry, deployment = locked_request(deployment_id)
    waiting = deployment is not None and deployment.status == Status.WAITING
    if entry is None or entry.user_id != user_id or not waiting or deployment.deleted:
        return None
    return entry


def claim(deployment_id: int, user_id: int) -> LineEntry:
    """Claim ``user_id``'s waiting request ``deployment_id`` for a change and return its line
    entry. Raises NotWaiting when it no longer waits, ChangeUnderway when another change of it
    holds the claim (both rolled back)."""
    entry = _locked(deployment_id, user_id)
    if entry is None:
        db.session.rollback()
        raise NotWaiting(_("This request no longer waits in line: it has started, or left it."))
    until = (entry.options or {}).get(_KEY)
    if until and datetime.fromisoformat(until) > utcnow():
        db.session.rollback()
        raise ChangeUnderway(
            _(
                "This request is being changed in another tab or window. Nothing was changed "
                "here: open the request's page to see it as it is now."
            )
        )
    entry.options = {**(entry.options or {}), _KEY: (utcnow() + CLAIM).isoformat()}
    db.session.commit()
    return entry


def release(deployment_id: int, user_id: int) -> None:
    """Let go of the claim on ``deployment_id`` after a change that failed."""
    db.session.rollback()
    entry = _locked(deployment_id, user_id)
    if entry is not None and _KEY in (entry.options or {}):
        entry.options = {k: v for k, v in entry.options.items() if k != _KEY}
    db.session.commit()
