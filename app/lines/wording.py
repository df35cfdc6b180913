"""What the line writes into timelines and status reasons (stored in English, told to each
reader in their language: ``words.N_``), and the titles of its timeline entries."""

from __future__ import annotations

from flask_babel import gettext as _

from app.deployments.models import DeploymentEvent
from app.deployments.words import LEFT_THE_LINE, N_, said

JOINED = N_("Waiting in line: the resources it needs are held by running deployments for now.")
JOINED_FOR_ROOM = N_("Waiting in line: no known site has room for it now.")
JOINED_BEHIND = N_("Waiting in line: requests that joined before it wait for what it needs.")
STARTED = N_("Its turn came: admitted from the line; submitting.")
LEFT = LEFT_THE_LINE  # the deployments' own delete of a waiting request says the same
DROPPED = N_("Waited the longest a request may wait; dropped from the line, nothing launched.")
REMOVED = N_("Removed from the line by an operator; nothing was launched.")
REMOVED_BY_MANAGER = N_("Removed from the line by a manager of its group; nothing was launched.")
NEVER_FITS = N_(
    "Dropped from the line: the limits were lowered and it could no longer fit; nothing "
    "was launched."
)
CHANGED = N_("Changed by its owner; the changed request keeps its place in line.")

# Timeline kinds, which the notifications feature maps to what the owner is told.
JOINED_KIND = "line-joined"
STARTED_KIND = "line-started"
LEFT_KIND = "line-left"
DROPPED_KIND = "line-dropped"
REMOVED_KIND = "line-removed"
MOVED_KIND = "line-moved"
CHANGED_KIND = "line-changed"


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` (each language its own way: Italian ``1º``)."""
    if 10 <= place % 100 <= 20 or place % 10 not in (1, 2, 3):
        return _("%(num)dth", num=place)
    if place % 10 == 1:
        return _("%(num)dst", num=place)
    if place % 10 == 2:
        return _("%(num)dnd", num=place)
    return _("%(num)drd", num=place)


def no_site_has_room() -> str:
    """Why a request its quotas let start waits: kept with its place in line."""
    return _("No known site has room for it now: it starts when one has.")


def event_words(event: DeploymentEvent) -> tuple[str, str | None] | None:
    """The title and text of a line's timeline entry; None for anything else."""
    details = event.details or {}
    reason = details.get("reason")
    if event.kind == JOINED_KIND:
        return _("Joined the line"), said(event.reason or JOINED)
    if event.kind == STARTED_KIND:
        return _("Admitted from the line"), _(STARTED)
    if event.kind == LEFT_KIND:
        return _("Left the line"), _(LEFT)
    if event.kind == DROPPED_KIND:
        return _("Dropped from the line"), said(event.reason or DROPPED)
    if event.kind == REMOVED_KIND:
        # The reason is the operator's own words, shown as typed.
        removed = REMOVED_BY_MANAGER if event.source == "manager" else REMOVED
        return _("Removed from the line"), _(
            "%(said)s Reason: %(reason)s", said=_(removed), reason=reason or ""
        )
    if event.kind == MOVED_KIND and event.source == "manager":
        return _("Moved in the line"), _(
            "%(manager)s, a manager of group %(group)s, moved it to place %(place)s. "
            "Reason: %(reason)s",
            manager=details.get("manager", ""),
            group=details.get("group", ""),
            place=details.get("to", ""),
            reason=reason or "",
        )
    if event.kind == MOVED_KIND:
        return _("Moved in the line"), _(
            "An operator moved it to place %(place)s. Reason: %(reason)s",
            place=details.get("to", ""),
            reason=reason or "",
        )
    if event.kind == CHANGED_KIND:
        return _("Request changed"), _(CHANGED)
    return None
