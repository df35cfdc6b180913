"""The sites: a launch its quotas let start is held while every known site whose numbers are
fresh says it does not fit (``app.capacity.room``), and may wait in the "free at a site" line.
Only while there is a line to offer instead: stale or unknown numbers never hold anyone back."""

from __future__ import annotations

from flask import current_app
from flask_babel import gettext as _

from app.capacity.room import has_room
from app.deployments.errors import LaunchError
from app.launch.constraints.hold import Claim, Hold
from app.lines import places, wording

KIND = "no-site-room"


class NoSiteRoom(LaunchError):
    """Every known site whose numbers are fresh says the request does not fit: it is not
    submitted, and may wait in the "free at a site" line instead. Nothing was recorded."""

    status_code = 409


def no_room_sentence() -> str:
    return _(
        "No known site has room for this now: every site whose numbers are fresh says it does "
        "not fit. Nothing was launched; wait in line and it starts when a site has room."
    )


def held(claim: Claim) -> Hold | None:
    if claim.from_line or not current_app.config.get("LINE_ENABLED"):
        return None  # the admission pass asks the sites itself, in the line's order
    if has_room(claim.charge):
        return None
    return Hold(
        KIND,
        no_room_sentence(),
        NoSiteRoom,
        line=places.site_line(claim.charge),
        reason=wording.no_site_has_room(),
        joined=wording.JOINED_FOR_ROOM,
    )
