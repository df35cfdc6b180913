"""The expiry pass: warnings, ends, grace, and deletes at expiry, each exactly once.

The worker's leases duty (``flask worker``, ``app.worker``), or alone ``flask leases expire``.
It reads only the leases due (the index on ``Lease.next_at``), so its cost follows what is due,
not how many deployments there are.

Exactly once, with several workers on one database: due leases are claimed and moved on in one
transaction (``app.claims``: a lease another worker holds is skipped). A warning and its
timeline event commit together with the lease's next step, so no second worker finds it due.
A delete is recorded first ("the portal, lease expired") in that same transaction, with a
retry time in ``next_at`` (should the worker die before asking), then asked
of the orchestrator outside any lock, then its outcome stored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import force_locale
from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from app import claims
from app.auth.errors import TokenUnavailable
from app.backends.base import BackendError
from app.clock import utcnow
from app.deployments import remote, tracking
from app.deployments.errors import NOT_DELETED, DeploymentError, problem_of, problem_text
from app.deployments.models import NOT_LAUNCHED, VANISHED, Deployment
from app.deployments.status import Status
from app.deployments.timeline import record_event
from app.extensions import db
from app.leases import schedule
from app.leases.clock_text import iso, recorded
from app.leases.events import record
from app.leases.models import DELETE_FAILED, DELETING, DONE, FAILED, GRACE, RUNNING, Lease
from app.leases.policy import resolver
from app.leases.wording import DELETE_REFUSED, stored
from app.worker import out_of_time

log = logging.getLogger(__name__)

# A pass asks for deletes for at most this long (``app.worker``): a backend slow to delete
# does not keep the leases that end meanwhile waiting behind its backlog.
PASS_BUDGET_SECONDS = 60

_GONE = (Status.DELETING, Status.DELETED)


@dataclass
class ExpiryResult:
    warned: int = 0
    expired: int = 0
    deleted: int = 0
    delete_failed: int = 0
    cleaned: int = 0
    deletes: list[int] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.warned} warned, {self.expired} expired, {self.deleted} deleted at expiry, "
            f"{self.cleaned} failed removed, {self.delete_failed} deletes failed"
        )

    def __str__(self) -> str:
        return self.summary()

    @property
    def acted(self) -> int:
        return self.warned + self.expired + self.deleted + self.cleaned + self.delete_failed


def expire_once() -> ExpiryResult:
    """One pass: every lease due now moves one step; deletes are then asked for."""
    result = ExpiryResult()
    batch = current_app.config["LEASES_BATCH"]
    while True:
        claimed = _claim_and_step(batch, result)
        _ask_deletes(result)
        if claimed < batch or out_of_time():
            return result


def _ask_deletes(result: ExpiryResult) -> None:
    """Ask for the deletes this pass recorded, one by one. Past the pass's budget the rest are
    due again at once, to be asked at the next pass (after the leases that came due meanwhile,
    rather than behind a slow backend's whole backlog)."""
    pending, result.deletes[:] = list(result.deletes), []
    for index, deployment_id in enumerate(pending):
        if out_of_time():
            db.session.execute(
                update(Lease)
                .where(Lease.deployment_id.in_(pending[index:]), Lease.state == DELETING)
                .values(next_at=utcnow())
            )
            db.session.commit()
            return
        _delete(deployment_id, result)


def _claim_and_step(limit: int, result: ExpiryResult) -> int:
    """Claim up to ``limit`` due leases (``app.claims``, held until the commit) and move each
    one step, in one transaction."""
    now = utcnow()
    ids = claims.claim_due(
        Lease.deployment_id, Lease.next_at <= now, order_by=(Lease.next_at,), limit=limit
    )
    leases = list(
        db.session.scalars(
            select(Lease)
            .where(Lease.deployment_id.in_(ids))
            .order_by(Lease.next_at)
            .execution_options(populate_existing=True)
        )
    )
    if leases:
        # One query for the deployments and their timelines (a step appends to it), one for
        # the policies, rather than a few per lease.
        # Held here: the session keeps loaded rows only while someone refers to them.
        deployments = {
            deployment.id: deployment
            for deployment in db.session.scalars(
                select(Deployment)
                .where(Deployment.id.in_([lease.deployment_id for lease in leases]))
                .options(selectinload(Deployment.events))
            )
        }
        policies = resolver()
        with db.session.no_autoflush:
            for lease in leases:
                _step(lease, deployments.get(lease.deployment_id), now, result, policies)
    db.session.commit()
    return len(leases)


def _retry_at(now: datetime) -> datetime:
    return now + timedelta(minutes=current_app.config["LEASES_DELETE_RETRY_MINUTES"])


def _step(lease: Lease, deployment, now: datetime, result: ExpiryResult, policies) -> None:
    if (
        deployment is None
        or deployment.deleted
        or (deployment.status in _GONE and lease.state not in (DELETING, DELETE_FAILED))
    ):
        lease.state, lease.next_at = DONE, None  # deleted some other way meanwhile
        return
    policy = policies(deployment.template_slug, deployment.group_name)
    if lease.state == RUNNING:
        _running(lease, deployment, policy, now, result)
    elif lease.state == GRACE:
        _record_delete(lease, deployment, now, "lease-deleted", {}, result)
    elif lease.state == FAILED:
        if deployment.status != Status.FAILED:
            lease.state, lease.next_at = DONE, None  # retried or deleted by its owner
            return
        details = {"failed_at": iso(lease.failed_at)}
        _record_delete(lease, deployment, now, "failed-cleanup", details, result)
    elif lease.state in (DELETING, DELETE_FAILED):
        lease.next_at = _retry_at(now)  # the earlier attempt died or was refused: again
        result.deletes.append(deployment.id)
    else:
        lease.next_at = None


def _running(lease, deployment, policy, now, result) -> None:
    if now >= lease.ends_at:
        grace = policy.grace or 0
        lease.state = GRACE
        lease.delete_at = max(lease.ends_at, now) + timedelta(minutes=grace)
        lease.next_at = lease.delete_at
        record(
            deployment,
            None,
            source="portal",
            kind="lease-expired",
            details={"ends_at": iso(lease.ends_at), "delete_at": iso(lease.delete_at)},
            reason=f"Lease ended. It will be deleted {recorded(lease.delete_at)}.",
        )
        result.expired += 1
        return
    before = schedule.due_warning(lease, policy, now)
    if before is not None:
        lease.warned_before = before
        record(
            deployment,
            None,
            source="portal",
            kind="lease-warned",
            details={"ends_at": iso(lease.ends_at), "before_minutes": before},
            reason=f"Lease ends soon. It ends {recorded(lease.ends_at)}.",
        )
        result.warned += 1
    lease.next_at = schedule.next_step(lease, policy, now)


def _record_delete(lease, deployment, now, kind: str, details: dict, result) -> None:
    """Record the delete before asking for it, with a retry time should this worker die."""
    why = (
        "Deleted by the portal: the lease expired."
        if kind == "lease-deleted"
        else "Removed by the portal: it failed to create and was kept long enough."
    )
    record(
        deployment,
        Status.DELETING,
        source="portal",
        kind=kind,
        details=details,
        reason=why,
    )
    deployment.status_reason = None
    lease.state, lease.next_at = DELETING, _retry_at(now)
    if kind == "failed-cleanup":
        result.cleaned += 1
    result.deletes.append(deployment.id)


def _delete(deployment_id: int, result: ExpiryResult) -> None:
    """Ask the backend to delete, through the owner's own delete verb, and store the outcome;
    commits. A refusal is kept on the lease and shown to the owner and to admins."""
    deployment = db.session.get(Deployment, deployment_id)
    lease = db.session.get(Lease, deployment_id)
    problem = None
    if not deployment.uuid or deployment.status in (NOT_LAUNCHED, VANISHED):
        deployment.deleted, deployment.deleted_at = True, utcnow()
    else:
        try:
            outcome = remote.delete(deployment)
        except BackendError as error:
            problem = problem_of(error, NOT_DELETED)
        except (TokenUnavailable, DeploymentError) as error:
            problem = {"error": "portal", "said": error.message}
        else:
            if outcome is remote.Deleted.GONE:
                tracking.mark_gone(deployment, source="portal")
                deployment.deleted = True
                deployment.deleted_at = deployment.deleted_at or utcnow()
    if problem:
        _delete_refused(deployment, lease, problem)
        result.delete_failed += 1
    else:
        result.deleted += 1
        lease.state, lease.next_at, lease.problem = DONE, None, None
        if not deployment.deleted:
            deployment.next_check_at, deployment.check_failures = utcnow(), 0
    db.session.commit()
    log.info("Lease of deployment %s: delete asked (%s)", deployment.id, problem or "accepted")


def _delete_refused(deployment, lease, problem: dict) -> None:
    """Keep the refusal as what words it again (``problem_of``): the lease panel, the stuck
    list and the timeline show it in each reader's language. The status reason keeps the
    orchestrator's own words."""
    now = utcnow()
    first = lease.state != DELETE_FAILED
    lease.state, lease.problem, lease.next_at = DELETE_FAILED, stored(problem), _retry_at(now)
    if first:
        with force_locale("en"):
            english = problem_text(problem)
        record_event(
            deployment,
            Status.DELETE_FAILED,
            source="portal",
            reason=f"The delete at the end of the lease failed. {english}",
            details={DELETE_REFUSED: problem},
        )
        deployment.status_reason = problem["said"]
