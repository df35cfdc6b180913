"""The launch decision: start, wait in line, or refuse, taken once for each request.

The constraints (``app.launch.constraints``: the quotas, those already waiting in line, the
sites' room) are asked in one order and the first that holds the launch back decides: it
waits in the line that hold names when the person wants to wait and the hold offers a line,
else it is refused in the hold's words. ``take`` takes the decision under the quotas' locks
(held to the caller's commit, so no racing launch can pass a limit) and records the row when
it starts; ``decide`` shows the same decision without taking it: the launch form's cost box,
the API's dry run (and so ``rcp launch --dry-run``) and the body of the API's refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import current_app

from app.deployments.status import Status
from app.deployments.timeline import record_event
from app.errors import PortalError
from app.extensions import db
from app.launch.checks import chosen_group
from app.launch.constraints import CONSTRAINTS, budget, line, room
from app.launch.constraints.hold import Claim, Hold
from app.launch.constraints.room import NoSiteRoom as NoSiteRoom  # callers catch it here
from app.quotas.errors import QuotaExceeded
from app.quotas.operations import (
    LaunchQuota,
    charge_for,
    lock_for_launch,
    reserve,
    uncounted_charge,
)
from app.quotas.preview import launch_preview
from app.tosca.yamlsafe import Limits, TemplateError

# What the launch does: starts, could wait in line instead, or is refused outright.
START, WAIT, REFUSE = "start", "wait", "refuse"


class CannotWait(QuotaExceeded):
    """The request is over a limit by itself: it could never fit, so it may not wait."""


@dataclass(frozen=True)
class Decision:
    """What a launch does now: ``outcome`` (START, WAIT: held but it may wait in line, or
    REFUSE) and the ``hold`` behind it (None when it starts)."""

    outcome: str
    hold: Hold | None = None

    @property
    def kind(self) -> str | None:
        """The API's problem kind when it does not start."""
        return self.hold.kind if self.hold else None

    def refusal(self, wanted_to_wait: bool = False) -> PortalError:
        """The named error that refuses it, in the hold's words; when the person wanted to
        wait and may not, the sentence says why it cannot wait (CannotWait)."""
        if wanted_to_wait and self.outcome == REFUSE:
            if not issubclass(self.hold.error, QuotaExceeded):
                return self.hold.error(self.hold.cannot_wait or self.hold.sentence)
            return CannotWait(self.hold.cannot_wait or self.hold.sentence)
        return self.hold.error(self.hold.sentence)


def weigh(claim: Claim) -> Decision:
    """Ask every constraint in order (see the module's docstring); writes nothing."""
    for held in CONSTRAINTS:
        hold = held(claim)
        if hold is not None:
            return Decision(WAIT if hold.line is not None else REFUSE, hold)
    return Decision(START)


def take(claim: Claim, deployment, **started) -> Decision:
    """Take the decision for ``deployment`` (populated) under the quotas' locks, which stay
    held until the caller commits or rolls back. When it starts, its timeline entry to
    SUBMITTING (``started``: the keywords of ``record_event``) is added and the quotas reserve
    it (the row added to the session and flushed); otherwise nothing is recorded, and the
    caller puts it in line (under the same locks) or rolls back and refuses it. Does not
    commit."""
    if deployment in db.session.new:
        db.session.expunge(deployment)
    lock_for_launch(claim.user.id, claim.group_name)
    decision = weigh(claim)
    if decision.outcome == START:
        record_event(deployment, Status.SUBMITTING, **started)
        reserve(claim.user, claim.group_name, claim.charge, deployment)
    return decision


def lines_open() -> bool:
    """Whether the portal offers lines to wait in (LINE_ENABLED)."""
    return bool(current_app.config.get("LINE_ENABLED"))


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
    template_slug: str = "",
    lease_minutes: int | None = None,
) -> dict:
    """The quotas' box (``app.quotas.preview.launch_preview``) for a launch by ``user`` charged
    to ``group`` (or, when None, the group the launch would charge), with the decision the
    launch would take now (``weigh``): ``kept`` (the sentence when requests in line come
    first), ``no_room`` (the sentence when no known site has room), ``budgets`` (each budget
    the launch meets, ``BudgetCheck``, binding first, for ``template_slug`` with a lease of
    ``lease_minutes``: None, the policy's default), ``over_budget`` (the sentence when it would
    overrun one), ``binding`` (the kind of the constraint that holds it back, or None),
    ``can_wait``, ``outcome`` (START, WAIT, REFUSE) and ``kind`` (None, or the API's problem
    kind for the refusal).

    Raises LaunchError (on the field "group") when ``group`` is not one of the person's.
    """
    box = launch_preview(
        user,
        template_document,
        parameters,
        group_name=chosen_group(user, group),
        incomplete=incomplete,
    )
    claim = Claim(
        user,
        box["group_name"],
        box["charge"],
        template_slug=template_slug,
        lease_minutes=lease_minutes,
        # The box read the quotas for this very claim: weighing it reads them no second time.
        quota=LaunchQuota(box["assessments"], box["refusal"]),
    )
    decision = weigh(claim)
    said = {decision.kind: decision.hold.sentence} if decision.hold else {}
    box["budgets"] = budget.checks_of(claim)
    box["over_budget"] = said.get(budget.KIND)
    box["binding"] = decision.kind
    box["kept"] = said.get(line.KIND)
    box["no_room"] = said.get(room.KIND)
    box["can_wait"] = decision.outcome == WAIT
    box["outcome"], box["kind"] = decision.outcome, decision.kind
    return box
