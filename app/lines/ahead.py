"""A launch comes behind everyone already in line.

A launch that fits its quotas may still not start at once: when requests already waiting
would then be kept from what they wait for (rule 5 of ``fairness``: no request takes what one
ahead of it waits for), it waits its turn too. ``line_ahead`` plans as the admission pass
does, over the waiting requests that share the launch's limits (its person's and its group's
pool), with the launch last, and says which line holds it back. The launch decision asks it
(``app.launch.constraints.line``) under the quotas' locks for every launch but the admission
pass's own, and the form's box and the API's dry run ask it to offer the line instead.

A changed request keeps its place (``taking_place_of``): it is planned where the request it
changes stands, and that one is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from flask import current_app, g
from flask_babel import ngettext

from app.caches import remembered, value_key
from app.lines import fairness, places, reading
from app.lines.capacity import room_checker
from app.quotas.models import GROUP

# The launch's id in the plan: no waiting request has it.
LAUNCH = 0
_PLACE = "waiting_place_of"


@dataclass(frozen=True)
class Ahead:
    """What holds a launch back: ``line``, and how many waiting requests counting against it
    come first."""

    line: places.Line
    waiting: int
    # Every one of them is the person's own (an earlier request of theirs still waiting).
    own: bool = False

    def sentence(self) -> str:
        if self.own:
            return ngettext(
                "Your own request that joined earlier waits for %(what)s: what is free now is "
                "kept for it. Wait in line behind it, or change or leave it.",
                "%(num)d of your own requests that joined earlier wait for %(what)s: what is "
                "free now is kept for them. Wait in line behind them, or change or leave them.",
                self.waiting,
                what=self.line.words(),
            )
        return ngettext(
            "%(num)d request waits ahead of this one for %(what)s: what is free now is kept "
            "for it. Wait in line to take your turn.",
            "%(num)d requests wait ahead of this one for %(what)s: what is free now is kept "
            "for them. Wait in line to take your turn.",
            self.waiting,
            what=self.line.words(),
        )


@contextmanager
def taking_place_of(deployment_id: int | None) -> Iterator[None]:
    """While it lasts, a launch is planned in the place of the waiting ``deployment_id``."""
    earlier = g.get(_PLACE)
    setattr(g, _PLACE, deployment_id)
    try:
        yield
    finally:
        setattr(g, _PLACE, earlier)


def line_ahead(user_id: int, group_name: str | None, charge: dict) -> Ahead | None:
    """What keeps a launch of ``charge`` by ``user_id`` (charged to ``group_name``) from
    starting at once for the sake of those waiting, or None when it may start. It is asked
    only of a launch its quotas let start."""
    if not current_app.config.get("LINE_ENABLED"):
        return None
    # Asked twice by the launch box (is it kept; could it wait): once, inside its block.
    key = (user_id, group_name, value_key(charge), g.get(_PLACE))
    return remembered("line_ahead", key, lambda: _line_ahead(user_id, group_name, charge))


def _line_ahead(user_id: int, group_name: str | None, charge: dict) -> Ahead | None:
    with reading.collector_paused():
        return _planned_last(user_id, group_name, charge)


def _planned_last(user_id: int, group_name: str | None, charge: dict) -> Ahead | None:
    rows = reading.ordered_waiting(user_id=user_id, group_name=group_name)
    instead_of = g.get(_PLACE)
    launch = reading.Waiting(LAUNCH, user_id, group_name, charge)
    planned = [launch if row.deployment_id == instead_of else row for row in rows]
    if not any(row.deployment_id == instead_of for row in rows):
        planned.append(launch)
    if len(planned) == 1:
        return None
    limits, used = reading.room_of(planned)
    has_room = room_checker()
    charge_of = {row.deployment_id: row.charge for row in planned}
    requests = reading.requests_of(planned, limits)
    plan = fairness.plan(
        requests,
        limits,
        used,
        startable=lambda request_id: request_id == LAUNCH or has_room(charge_of[request_id]),
    )
    tight = plan.short_of.get(LAUNCH)
    if not tight:
        return None
    key = min(tight, key=lambda k: (k[0] != GROUP, k[3] is None, k[2] != "gpus"))
    owners = []
    for row, request in zip(planned, requests, strict=True):
        if request.id == LAUNCH:
            break
        if key in request.needs:
            owners.append(row.user_id)
    own = bool(owners) and all(owner == user_id for owner in owners)
    return Ahead(places.Line(*key), max(len(owners), 1), own)
