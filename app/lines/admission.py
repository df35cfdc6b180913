"""The admission pass: start waiting requests as soon as they fit, in the line's order.

Run by the sync worker after each of its passes (``flask deployments sync --loop``), or alone
with ``flask lines admit``. One pass drops the requests that waited too long, reads every
waiting request with what its owners hold and may hold (a few grouped queries, whatever the
number of deployments), plans in the written-down order (``fairness.plan``), then starts the
planned ones one by one with the ``start`` it is given: the launch's own start of a waiting
request (``app.launch.admission``), a floor above, which takes the launch decision for it.

Exactly once and never over a limit, with several workers on several hosts: a request is
started only under the lock of its own row, still WAITING (``operations.held_entry``), and
reserved under the quota locks every launch takes, which check the limits again against what
is held at that moment. A plan made from figures another worker has since changed is
therefore safe; should a reservation find the plan out of date, the pass stops there and the
next one plans again, so that no one behind is started ahead of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import func, select

from app.deployments.models import DeploymentEvent
from app.deployments.status import Status
from app.extension_points import StateKey
from app.extensions import db
from app.lines import capacity, fairness, operations, overdue, reading, wording
from app.lines.models import LineEntry
from app.quotas.models import QuotaChange


@dataclass
class AdmissionResult:
    waiting: int = 0
    admitted: int = 0
    dropped: int = 0
    never_fit: int = 0
    failed: int = 0
    raced: int = 0

    @property
    def acted(self) -> int:
        return self.admitted + self.dropped + self.never_fit + self.failed

    def __str__(self) -> str:
        return (
            f"{self.waiting} waiting, {self.admitted} admitted, {self.dropped} dropped after "
            f"the longest wait, {self.never_fit} dropped over their limits, {self.failed} "
            f"failed to submit"
        )


def admit_once(start: Callable[[int], str]) -> AdmissionResult:
    """One pass (see the module's docstring); commits what it does. ``start(deployment_id)``
    starts one planned request and says how it went: "admitted", "gone" (it no longer waits),
    "short" (its quotas no longer have room: the plan is out of date) or "failed"."""
    result = AdmissionResult(dropped=overdue.drop_overdue())
    stamp = _stamp()
    if _unchanged_since_idle(stamp):
        result.waiting = stamp[2]
        db.session.rollback()
        return result
    with reading.collector_paused():
        result.waiting, plan = plan_now()
    if not result.waiting:
        return result
    if not plan.admit and not plan.never_fit:
        _remember_idle(stamp)
    for deployment_id in plan.never_fit:
        result.never_fit += _drop_never_fitting(deployment_id)
    for deployment_id in plan.admit:
        outcome = start(deployment_id)
        if outcome == "short":
            result.raced += 1
            break  # the plan is out of date: the next pass plans again, in order
        if outcome == "admitted":
            result.admitted += 1
        elif outcome == "failed":
            result.failed += 1
    return result


def plan_now() -> tuple[int, fairness.Plan]:
    """How many wait, and whom to start now (``fairness.plan`` over every waiting request);
    ends the reading transaction, since each start takes its own locks."""
    rows = reading.ordered_waiting()
    if not rows:
        db.session.rollback()
        return 0, fairness.Plan()
    limits, used = reading.room_of(rows)
    db.session.rollback()
    has_room = capacity.room_checker()
    charges = {row.deployment_id: row.charge for row in rows}
    plan = fairness.plan(
        reading.requests_of(rows, limits),
        limits,
        used,
        most=current_app.config["LINE_ADMIT_BATCH"],
        startable=lambda request_id: has_room(charges[request_id]),
    )
    return len(rows), plan


# A pass that started nothing is repeated in full only once something it read may have changed
# (a timeline entry, a limit, the line itself), or this long after, whichever comes first.
REPLAN_SECONDS = 60
_IDLE = StateKey("admission idle")


def _stamp() -> tuple:
    """What a plan depends on, in a few index lookups: the newest timeline entry (every change
    of what a deployment holds records one), the newest change of a limit, and the line."""
    return (
        db.session.scalar(select(func.max(DeploymentEvent.id))),
        db.session.scalar(select(func.max(QuotaChange.id))),
        *db.session.execute(
            select(
                func.count(LineEntry.deployment_id),
                func.max(LineEntry.enqueued_at),
                func.max(LineEntry.placed_at),
            )
        ).one(),
    )


def _unchanged_since_idle(stamp: tuple) -> bool:
    """Whether this process's last full pass started nothing and nothing changed since. A
    capacity source (``capacity``) changes without a trace here: then every pass plans."""
    if capacity.capacity_known():
        return False
    idle = current_app.extensions.get(_IDLE)
    return idle is not None and idle[0] == stamp and time.monotonic() - idle[1] < REPLAN_SECONDS


def _remember_idle(stamp: tuple) -> None:
    current_app.extensions[_IDLE] = (stamp, time.monotonic())


def _drop_never_fitting(deployment_id: int) -> int:
    try:
        entry = operations.held_entry(deployment_id)
    except operations.NotWaiting:
        return 0
    operations.out_of_line(
        entry,
        Status.NOT_LAUNCHED,
        source="portal",
        reason=wording.NEVER_FITS,
        kind=wording.DROPPED_KIND,
    )
    db.session.commit()
    return 1
