"""The kinds of notification, which timeline entries cause which, and the e-mail defaults.

The mapping follows the agreement with the features that record timeline entries (leases,
deployments): they record events; this module alone decides which of them someone is told.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from app.deployments.models import DeploymentEvent
from app.deployments.status import Status

READY = "ready"
FAILED = "failed"
LEASE_WARNING = "lease-warning"
LEASE_EXPIRED = "lease-expired"
LEASE_DELETED = "lease-deleted"
FAILED_CLEANUP = "failed-cleanup"
DELETED_BY_ADMIN = "deleted-by-admin"
DELETE_FAILED = "delete-failed"
LEASE_EXTENDED = "lease-extended"
LINE_STARTED = "line-started"
LINE_DROPPED = "line-dropped"
LINE_REMOVED = "line-removed"
LINE_MOVED = "line-moved"
BUDGET_WARNING = "budget-warning"


@dataclass(frozen=True)
class Kind:
    name: str
    label: object  # a lazy string: the checkbox's label on the Account page
    email_by_default: bool = False


# In the order the Account page lists them.
KINDS = (
    Kind(READY, _l("A deployment is ready")),
    Kind(FAILED, _l("A deployment failed to start"), email_by_default=True),
    Kind(LEASE_WARNING, _l("A deployment's time is running out"), email_by_default=True),
    Kind(LEASE_EXTENDED, _l("An operator extended a deployment's time")),
    Kind(LEASE_EXPIRED, _l("A deployment's time is up")),
    Kind(LEASE_DELETED, _l("A deployment was deleted when its time was up")),
    Kind(FAILED_CLEANUP, _l("A failed deployment was removed")),
    Kind(DELETED_BY_ADMIN, _l("An administrator deleted a deployment")),
    Kind(DELETE_FAILED, _l("Deleting a deployment failed")),
    # Its mail promises the ready one: whoever is mailed this is mailed that too (``mailed``).
    Kind(
        LINE_STARTED,
        _l("A request waiting in line started, and then when it is ready"),
        email_by_default=True,
    ),
    Kind(LINE_DROPPED, _l("A request was dropped from the line"), email_by_default=True),
    Kind(LINE_REMOVED, _l("An operator removed a request from the line"), email_by_default=True),
    Kind(LINE_MOVED, _l("An operator moved a request in the line")),
    Kind(
        BUDGET_WARNING,
        _l("A budget, yours or of a group you manage, is 80 % or wholly used"),
        email_by_default=True,
    ),
)
BY_NAME = {kind.name: kind for kind in KINDS}
DEFAULT_EMAIL_KINDS = frozenset(kind.name for kind in KINDS if kind.email_by_default)

# Timeline kinds that always tell the owner.
_EVENT_KINDS = {
    "lease-warned": LEASE_WARNING,
    "lease-expired": LEASE_EXPIRED,
    "lease-deleted": LEASE_DELETED,
    "failed-cleanup": FAILED_CLEANUP,
    # The line's (app.lines): its turn came, or it left the line by no wish of the owner.
    "line-started": LINE_STARTED,
    "line-dropped": LINE_DROPPED,
    "line-removed": LINE_REMOVED,
    "line-moved": LINE_MOVED,
}
# Status changes that tell the owner, when the orchestrator's news brings them or the portal
# acting by itself records them (its delete at a lease's end refused: the owner must know);
# a person resetting a stuck delete to a failed one knows already.
_STATUS_KINDS = {
    Status.READY: READY,
    Status.FAILED: FAILED,
    Status.DELETE_FAILED: DELETE_FAILED,
}
_NEWS_SOURCES = frozenset({"launch", "callback", "sync", "portal"})


# Timeline sources of actions taken by someone other than the owner.
ACTED_FOR_OWNER = frozenset({"admin", "co-owner", "manager"})


def kind_for(event: DeploymentEvent, owner_id: int) -> str | None:
    """The notification ``event`` on a deployment owned by ``owner_id`` causes, if any."""
    if event.kind in _EVENT_KINDS:
        return _EVENT_KINDS[event.kind]
    # Someone else steered it (an admin, a co-owner, a manager of its group): its owner is told.
    acted_for_owner = event.source in ACTED_FOR_OWNER and event.actor_id not in (None, owner_id)
    if event.kind == "lease-extended":
        return LEASE_EXTENDED if acted_for_owner else None
    if event.kind == "delete-requested":
        return DELETED_BY_ADMIN if acted_for_owner else None
    news = event.kind is None and event.source in _NEWS_SOURCES
    if news and event.to_status != event.from_status:
        return _STATUS_KINDS.get(event.to_status)
    return None


def mailed(kind: str, chosen: frozenset[str], *, waited_in_line: bool) -> bool:
    """Whether a notification of ``kind`` is mailed to someone who ticked ``chosen``.

    The mail telling that a waiting request started says its owner is told again when it is
    ready, so the ready notice of a deployment that ``waited_in_line`` is mailed to whoever
    gets the first mail, whether or not "A deployment is ready" is ticked.
    """
    if kind in chosen:
        return True
    return kind == READY and waited_in_line and LINE_STARTED in chosen


def started_from_line(event_kinds) -> bool:
    """Whether a deployment whose timeline holds ``event_kinds`` left a line to start."""
    return any(kind in _STARTED_FROM_LINE for kind in event_kinds)


_STARTED_FROM_LINE = frozenset(k for k, v in _EVENT_KINDS.items() if v == LINE_STARTED)
