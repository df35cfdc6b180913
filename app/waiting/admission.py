"""The admission pass: start waiting requests as soon as they fit, in the line's order.

Run by the sync worker after each of its passes (``flask deployments sync --loop``), or alone
with ``flask lines admit``. One pass drops the requests that waited too long, reads every
waiting request with what its owners hold and may hold (a few grouped queries, whatever the
number of deployments), plans in the written-down order (``fairness.plan``), then starts the
planned ones one by one, each exactly as a person's launch (``workflow.admit``).

Exactly once and never over a limit, with several workers on several hosts: a request is
started only under the lock of its own row, still WAITING (``operations.held_entry``), and
reserved under the quota locks every launch takes, which check the limits again against what
is held at that moment. A plan made from figures another worker has since changed is
therefore safe; should a reservation find the plan out of date, the pass stops there and the
next one plans again, so that no one behind is started ahead of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import current_app
from sqlalchemy import select

from app.auth.models import User
from app.deployments.errors import LaunchError
from app.deployments.models import Deployment
from app.deployments.secrets import unseal
from app.deployments.status import Status
from app.extensions import db
from app.launch import workflow
from app.leases import operations as lease_operations
from app.quotas.errors import QuotaExceeded
from app.quotas.limits import combine, limits_for_many, rows_for
from app.quotas.models import GROUP, USER
from app.quotas.usage import Usage, usage_of_many
from app.waiting import capacity, fairness, lines, operations, wording
from app.waiting.models import LineEntry

log = logging.getLogger(__name__)


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


def admit_once() -> AdmissionResult:
    """One pass (see the module's docstring); commits what it does."""
    result = AdmissionResult(dropped=operations.drop_overdue())
    rows = ordered_waiting()
    db.session.rollback()  # end the reading transaction: each start takes its own locks
    result.waiting = len(rows)
    if not rows:
        return result
    requests = [
        fairness.Request(row.deployment_id, lines.needs_of(row.user_id, row.group_name, row.charge))
        for row in rows
    ]
    limits, used = room_of(rows)
    charges = {row.deployment_id: (row.charge, row.group_name) for row in rows}
    plan = fairness.plan(
        requests,
        limits,
        used,
        most=current_app.config["QUEUE_ADMIT_BATCH"],
        startable=lambda request_id: capacity.site_has_room(*charges[request_id]),
    )
    db.session.rollback()
    for deployment_id in plan.never_fit:
        result.never_fit += _drop_never_fitting(deployment_id)
    for deployment_id in plan.admit:
        outcome = admit(deployment_id)
        if outcome == "short":
            result.raced += 1
            break  # the plan is out of date: the next pass plans again, in order
        if outcome == "admitted":
            result.admitted += 1
        elif outcome == "failed":
            result.failed += 1
    return result


def ordered_waiting() -> list:
    """Every waiting request (its id, owner, group and charge), in the line's order."""
    statement = (
        select(
            LineEntry.deployment_id,
            LineEntry.user_id,
            LineEntry.enqueued_at,
            LineEntry.fair_at,
            LineEntry.placed_at,
            Deployment.group_name,
            Deployment.charge,
        )
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .where(Deployment.status == Status.WAITING, Deployment.deleted.is_(False))
    )
    fair = current_app.config["QUEUE_FAIR_SHARE"]
    rows = db.session.execute(statement).all()
    return sorted(
        rows,
        key=lambda r: fairness.order_key(
            r.enqueued_at, r.fair_at, r.placed_at, r.deployment_id, fair_share=fair
        ),
    )


def room_of(rows) -> tuple[dict, dict]:
    """The limits (None: unlimited) and what is held now, for every owner of ``rows``, by
    the plan's keys (``fairness.Key``)."""
    user_ids = sorted({row.user_id for row in rows})
    groups = sorted({row.group_name for row in rows if row.group_name})
    users = list(db.session.scalars(select(User).where(User.id.in_(user_ids))))
    own = limits_for_many(users)
    stored = rows_for([(GROUP, name) for name in groups])
    pools = {name: combine(stored.get((GROUP, name), {}), [], None) for name in groups}
    models = {model for row in rows for model in (row.charge or {}).get("gpu_models") or {}}
    for found in (*own.values(), *pools.values()):
        models.update(found.gpu_models)
    held_by_user, held_by_group = usage_of_many(
        user_ids=user_ids, group_names=groups, models=models
    )
    limits, used = {}, {}
    owners = [(USER, str(uid), own.get(uid), held_by_user.get(uid)) for uid in user_ids]
    owners += [(GROUP, name, pools[name], held_by_group.get(name)) for name in groups]
    for scope, subject, limit_set, usage in owners:
        usage = usage or Usage()
        for resource in lines.RESOURCES:
            key = (scope, subject, resource, None)
            limits[key] = limit_set.get(resource) if limit_set else None
            used[key] = usage.get(resource)
        for model, limit in (limit_set.gpu_models if limit_set else {}).items():
            key = (scope, subject, "gpus", model)
            limits[key] = limit
            used[key] = usage.gpu_models.get(model, 0)
    return limits, used


def admit(deployment_id: int) -> str:
    """Start one waiting request as a person's launch would; "admitted", "gone" (it no longer
    waits), "short" (its quotas no longer have room) or "failed" (its submit failed)."""
    try:
        entry = operations.held_entry(deployment_id)
    except operations.NotWaiting:
        return "gone"
    deployment = entry.deployment
    parameters = unseal(entry.inputs_sealed)
    minutes = (entry.options or {}).get("lease_minutes")
    db.session.delete(entry)
    try:
        workflow.admit(
            deployment,
            parameters,
            reason=wording.STARTED,
            kind=wording.STARTED_KIND,
            on_recorded=lambda d: lease_operations.choose(d, minutes=minutes),
        )
    except QuotaExceeded:
        return "short"
    except LaunchError as error:
        log.warning("Request %s admitted but not launched: %s", deployment_id, error.message)
        return "failed"
    log.info("Request %s admitted from the line", deployment_id)
    return "admitted"


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
