"""What a launch would do now: start, or be held (over a limit, behind the line, or no known
site has room), and whether it may wait in line instead.

One computation for everything that says so beforehand: the launch form's cost box, the API's
dry run (and so ``rcp launch --dry-run``) and the body of the API's refusal. It charges what the
launch charges: the same group (``checks.chosen_group``, the person's first group when none is
chosen), the same price (``charge_for``) and the same rules in the same order as the launch
itself, which asks them again at submit (the quotas and the line under the quotas' locks in
``reserve``, then ``held_for_room``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from app.capacity.room import has_room
from app.deployments.errors import LaunchError
from app.extensions import db
from app.launch.checks import chosen_group
from app.quotas.operations import charge_for, uncounted_charge
from app.quotas.preview import launch_preview
from app.tosca.yamlsafe import Limits, TemplateError

# What the launch does: starts, could wait in line instead, or is refused outright.
START, WAIT, REFUSE = "start", "wait", "refuse"


class NoSiteRoom(LaunchError):
    """Every known site whose numbers are fresh says the request does not fit: it is not
    submitted, and may wait in the "free at a site" line instead. Nothing was recorded."""

    status_code = 409


def waiting_slot(name: str):
    """What the line (a floor above, ``app.waiting``) put in the slot ``name``: the verb that
    waits in line or launches at once (``launch.wait_in_line``), the question whether a
    launch that does not fit could wait (``launch.can_wait``), or why one that fits is kept
    for those already waiting (``launch.line_ahead``). None while lines are off."""
    if not current_app.config.get("QUEUE_ENABLED"):
        return None
    return current_app.extensions.get(name)


def lines_open() -> bool:
    """Whether the portal has lines to wait in."""
    return waiting_slot("launch.can_wait") is not None


def no_room_sentence() -> str:
    return _(
        "No known site has room for this now: every site whose numbers are fresh says it does "
        "not fit. Nothing was launched; wait in line and it starts when a site has room."
    )


def held_for_room(charge: dict) -> bool:
    """Whether a launch its quotas let start is held because no known site has room for it
    (``app.capacity.room``). Only while there is a line to offer instead: stale or unknown
    numbers never hold anyone back."""
    return lines_open() and not has_room(charge)


def check_room(charge: dict) -> None:
    """Raises NoSiteRoom, with the session rolled back (nothing recorded, the quotas' locks
    let go), when ``held_for_room``."""
    if held_for_room(charge):
        db.session.rollback()
        raise NoSiteRoom(no_room_sentence())


def charge_of(text: str, parameters: Mapping[str, Any]) -> dict:
    """What a launch of the TOSCA ``text`` with ``parameters`` is charged (``charge_for``);
    a template that cannot be read is of unknown cost (counting nothing would let it past
    every limit)."""
    try:
        document, _lines = Limits().load(text)
    except TemplateError as error:
        return uncounted_charge(f"the template could not be read ({error.message})")
    return charge_for(document, parameters)


def decide(
    user,
    template_document: Mapping[str, Any],
    parameters: Mapping[str, Any],
    group: str | None,
    *,
    incomplete: bool = False,
) -> dict:
    """The quotas' box (``app.quotas.preview.launch_preview``) for a launch by ``user`` charged
    to ``group`` (or, when None, the group the launch would charge), with what the launch would
    then do: ``kept`` (the sentence when requests in line come first), ``no_room`` (the sentence
    when no known site has room), ``can_wait``, ``outcome`` (START, WAIT: held but it may wait
    in line, REFUSE) and ``kind`` (None, "over-quota", "line-ahead" or "no-site-room": the API's
    problem kind for the refusal).

    Raises LaunchError (on the field "group") when ``group`` is not one of the person's.
    """
    box = launch_preview(
        user,
        template_document,
        parameters,
        group_name=chosen_group(user, group),
        incomplete=incomplete,
    )
    charged, charge = box["group_name"], box["charge"]
    quota_fits = box["fits"] and not box["refusal"]
    line_ahead = waiting_slot("launch.line_ahead")
    box["kept"] = line_ahead(user, charged, charge) if quota_fits and line_ahead else None
    box["no_room"] = (
        no_room_sentence() if quota_fits and not box["kept"] and held_for_room(charge) else None
    )
    can_wait = waiting_slot("launch.can_wait")
    box["can_wait"] = bool(box["kept"] or box["no_room"]) or bool(
        can_wait and not box["refusal"] and not box["fits"] and can_wait(user, charged, charge)
    )
    if quota_fits and not box["kept"] and not box["no_room"]:
        box["outcome"], box["kind"] = START, None
    else:
        box["outcome"] = WAIT if box["can_wait"] else REFUSE
        box["kind"] = (
            "line-ahead" if box["kept"] else "no-site-room" if box["no_room"] else "over-quota"
        )
    return box
