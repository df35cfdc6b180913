"""Changing a waiting request: the changed request is decided as a new launch, planned in the
place of the one it changes (``app.lines.ahead.taking_place_of``); it starts at once when it
may, or waits keeping that place, and the request it changes leaves the line.

One change at a time: the change claims the waiting request first (``app.lines.changing``),
and lets go of the claim when the change fails, so the request it changes still waits.
"""

from __future__ import annotations

from app.deployments.models import Deployment
from app.launch import workflow
from app.launch.request import LaunchRequest
from app.lines import ahead, changing, joining


def change(request: LaunchRequest, replaces: int) -> Deployment:
    """Change the person's waiting request ``replaces`` into ``request``; commits. Returns the
    changed request, launched or WAITING in the place of the one it changes.

    Raises NotWaiting when ``replaces`` no longer waits, ChangeUnderway when another change of
    it is under way, or what ``workflow.launch`` raises (then ``replaces`` still waits).
    """
    user = request.user
    place = joining.place_of(changing.claim(replaces, user.id))
    try:
        with ahead.taking_place_of(replaces):
            changed = workflow.launch(request, wait=True)
    except BaseException:
        changing.release(replaces, user.id)
        raise
    joining.replace(user, replaces, changed, place)
    return changed
