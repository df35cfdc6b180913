"""What people and the portal do with leases: choose one at launch, start its clock when the
deployment is ready, extend it. Each verb records its timeline event and commits (``start``,
called from inside a flush, leaves committing to the flush's owner).

Timeline events follow the contract the notifications feature reads: ``lease-chosen``,
``lease-extended`` (and, in ``expiry``, ``lease-warned``, ``lease-expired``, ``lease-deleted``,
``failed-cleanup``), times in details as ISO 8601 UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from flask_babel import gettext as _
from sqlalchemy import select, update

from app.auth.models import User
from app.clock import utcnow
from app.deployments import access
from app.deployments.access import Action
from app.deployments.models import Deployment
from app.deployments.timeline import actor_source
from app.errors import NotFound
from app.extension_points import LEASE_EXTEND_CHECKS
from app.extensions import db
from app.leases import schedule
from app.leases.clock_text import iso, recorded
from app.leases.durations import spoken_duration
from app.leases.errors import ExtendRefused, InvalidPolicy
from app.leases.events import record
from app.leases.models import DONE, FAILED, GRACE, RUNNING, WAITING, Lease
from app.leases.policy import Policy, resolve
from app.text import check_one_line


def policy_of(deployment: Deployment) -> Policy:
    return resolve(deployment.template_slug, deployment.group_name)


def check_choice(policy: Policy, minutes: int | None) -> int | None:
    """The duration to record for a launch under ``policy``: ``minutes`` (None: the default)
    if the policy allows it; None when nothing expires. Raises InvalidPolicy in words."""
    if not policy.expires:
        return None
    if minutes is None:
        return min(policy.default, policy.longest_initial)
    if minutes <= 0:
        raise InvalidPolicy(_("Choose a duration longer than zero."), field="lease_duration")
    if minutes > policy.longest_initial:
        raise InvalidPolicy(
            _(
                "Choose %(longest)s or less: the longest this application may run at first.",
                longest=spoken_duration(policy.longest_initial),
            ),
            field="lease_duration",
        )
    return minutes


def choose(deployment: Deployment, minutes: int | None) -> Lease | None:
    """Record the duration chosen at launch with ``deployment`` (already recorded, not yet
    submitted), so the clock can start when it is ready; commits. Nothing is recorded when the
    policy neither expires nor cleans up failures. Never raises for the duration: the form
    checked it, and a policy changed since then shortens it to the new longest (the deployment
    is recorded already; refusing now would strand it)."""
    policy = policy_of(deployment)
    if policy.expires and minutes is not None:
        minutes = max(1, min(minutes, policy.longest_initial))
    minutes = check_choice(policy, minutes)
    if minutes is None and policy.failed_cleanup is None:
        return None
    lease = Lease(deployment_id=deployment.id, state=WAITING, minutes=minutes, extends=0)
    db.session.add(lease)
    db.session.commit()
    return lease


def lease_of(deployment_id: int) -> Lease | None:
    return db.session.get(Lease, deployment_id)


def start(deployment: Deployment, source: str, session=None) -> None:
    """The deployment became ready: start its lease's clock now (with the policy's default when
    none was chosen, as for adopted deployments) and record ``lease-chosen``. Called while a
    flush is being prepared; the caller commits."""
    session = session or db.session
    lease = _lease_in(session, deployment)
    if lease is not None and lease.state != WAITING:
        return  # started already (a status that came back to ready)
    policy = policy_of(deployment)
    if lease is None:
        if not policy.expires:
            return
        lease = Lease(deployment=deployment, state=WAITING, minutes=policy.default, extends=0)
        session.add(lease)
    if lease.minutes is None:
        lease.state, lease.next_at = DONE, None
        return
    now = utcnow()
    lease.state, lease.started_at = RUNNING, now
    lease.ends_at, lease.end_set_at = now + timedelta(minutes=lease.minutes), now
    lease.warned_before = None
    lease.next_at = schedule.next_step(lease, policy, now)
    record(
        deployment,
        None,
        source=source if source in ("sync", "callback") else "portal",
        kind="lease-chosen",
        details={"ends_at": iso(lease.ends_at)},
        reason=f"Lease started. Ends {recorded(lease.ends_at)}.",
    )


def failed(deployment: Deployment, session=None) -> None:
    """The deployment failed to create: schedule its removal after the failed-cleanup time
    (when the policy sets one). Called while a flush is being prepared; the caller commits."""
    session = session or db.session
    lease = _lease_in(session, deployment)
    policy = policy_of(deployment)
    if policy.failed_cleanup is None:
        if lease is not None:
            lease.state, lease.next_at = DONE, None
        return
    if lease is None:
        lease = Lease(deployment=deployment, minutes=None, extends=0)
        session.add(lease)
    now = utcnow()
    lease.state, lease.failed_at = FAILED, now
    lease.next_at = now + timedelta(minutes=policy.failed_cleanup)


def finished(deployment: Deployment, session=None) -> None:
    """The deployment is gone: its lease has nothing left to do."""
    lease = _lease_in(session or db.session, deployment)
    if lease is not None:
        lease.state, lease.next_at = DONE, None


def _lease_in(session, deployment: Deployment) -> Lease | None:
    for pending in session.new:
        if isinstance(pending, Lease) and pending.deployment is deployment:
            return pending
    if deployment.id is None:
        return None
    with session.no_autoflush:
        return session.get(Lease, deployment.id)


@dataclass
class ExtendOffer:
    """Whether extending is possible now, and how far; ``refusal`` says why not."""

    allowed: bool
    new_end: datetime | None = None
    refusal: str | None = None
    cap_end: datetime | None = None


def offer(lease: Lease | None, policy: Policy, now: datetime | None = None) -> ExtendOffer:
    """What an extend by the owner would do now under ``policy``."""
    now = now or utcnow()
    if lease is None or lease.state not in (RUNNING, GRACE) or lease.ends_at is None:
        return ExtendOffer(False, refusal=_("this deployment has no running lease"))
    cap_end = policy.cap_end(lease.started_at) if lease.started_at else None
    if not policy.extend_step:
        return ExtendOffer(False, refusal=_("this application's policy allows no extends"))
    if policy.max_extends is not None and lease.extends >= policy.max_extends:
        return ExtendOffer(False, refusal=_("no extends left"))
    if cap_end is not None and lease.ends_at >= cap_end:
        return ExtendOffer(
            False,
            refusal=_("the cap of %(cap)s is reached", cap=spoken_duration(policy.cap)),
        )
    window = policy.extend_window
    if window and now < lease.ends_at - timedelta(minutes=window):
        return ExtendOffer(
            False,
            refusal=_("extends open %(window)s before the end", window=spoken_duration(window)),
            cap_end=cap_end,
        )
    new_end = max(lease.ends_at, now) + timedelta(minutes=policy.extend_step)
    if cap_end is not None:
        new_end = min(new_end, cap_end)
    return ExtendOffer(True, new_end=new_end, cap_end=cap_end)


def visible_lease(actor: User, deployment_id: int, *, override: bool) -> tuple[Deployment, Lease]:
    """The deployment and its lease if ``actor`` may extend it (``access``: its owner,
    co-owners, its group's managers, admins; operators extending past the policy). Raises
    NotFound otherwise."""
    action = Action.EXTEND_PAST_POLICY if override else Action.EXTEND
    deployment = access.deployment_for(actor, deployment_id, action)
    # The row as it is now, locked: not a copy this session read before another host's extend.
    lease = db.session.scalar(
        select(Lease)
        .where(Lease.deployment_id == deployment.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return deployment, lease


# Extends of one lease this close together are one person's one wish sent twice (a double
# click, two tabs, a retried request without its Idempotency-Key, two hosts answering at once):
# the first extends, the others are told so. Longer than a request takes; short enough that a
# deliberate second extend is not held back.
EXTENDED_TOGETHER = timedelta(seconds=10)


def _just_extended() -> ExtendRefused:
    return ExtendRefused(
        _(
            "This lease was extended a moment ago, by this or another request; it was not "
            "extended again."
        )
    )


def _count_extend(lease: Lease, now: datetime, *, override: bool) -> None:
    """Count this extend unless another one was counted together with it; raises ExtendRefused.

    The count moves only from the value read (a compare-and-set), so that where the database
    takes no row lock (SQLite) two extends that read the same lease cannot both succeed. An
    operator's override is a decision with its reason, never a wish sent twice: it is not held
    back by an extend a moment before it.
    """
    recent = lease.end_set_at and now - lease.end_set_at < EXTENDED_TOGETHER
    if not override and lease.extends and recent:
        raise _just_extended()
    counted = db.session.execute(
        update(Lease)
        .where(Lease.deployment_id == lease.deployment_id, Lease.extends == lease.extends)
        .values(extends=lease.extends + 1)
        .execution_options(synchronize_session=False)
    ).rowcount
    if counted != 1:
        raise _just_extended()


def extend(
    actor: User,
    deployment_id: int,
    *,
    override: bool = False,
    by: int | None = None,
    reason: str | None = None,
) -> Lease:
    """Extend the lease of deployment ``deployment_id`` by the policy's step, within the
    policy; commits and records ``lease-extended``. Without ``override``, ``by`` (minutes) may
    only name the step itself (a script saying what it expects); any other length is refused.
    With ``override`` an operator or admin extends by ``by`` minutes (the step when None) past
    the cap, window and count, giving a ``reason``; only an extend within the policy is asked
    the ``LEASE_EXTEND_CHECKS`` (a budget it would overrun). Raises ExtendRefused with the
    reason, NotFound, InvalidPolicy, or a check's PortalError (OverBudget; PortalError for a
    reason with control characters)."""
    try:
        check_one_line(reason, _("Reason"), "reason")
        deployment, lease = visible_lease(actor, deployment_id, override=override)
        policy = policy_of(deployment)
        now = utcnow()
        if override:
            new_end, past_cap, previous = _override_end(actor, lease, policy, now, by, reason)
        else:
            if by is not None and by != policy.extend_step:
                raise ExtendRefused(_step_refusal(policy))
            chance = offer(lease, policy, now)
            if not chance.allowed:
                raise ExtendRefused(
                    _("This lease cannot be extended now: %(why)s.", why=chance.refusal)
                )
            new_end, past_cap, previous = chance.new_end, False, lease.ends_at
            for check in LEASE_EXTEND_CHECKS.each():
                check(deployment, lease, new_end, now)
        _count_extend(lease, now, override=override)
    except BaseException:
        db.session.rollback()
        raise
    lease.ends_at, lease.end_set_at, lease.extends = new_end, now, lease.extends + 1
    lease.state, lease.delete_at, lease.warned_before = RUNNING, None, None
    lease.next_at = schedule.next_step(lease, policy, now)
    source = (
        "admin" if override and actor.id != deployment.user_id else actor_source(actor, deployment)
    )
    record(
        deployment,
        None,
        source=source,
        actor=actor,
        kind="lease-extended",
        details={
            "ends_at": iso(new_end),
            "previous_ends_at": iso(previous),
            "past_cap": past_cap,
            "reason": (reason or "").strip() or None,
        },
        reason=f"Lease extended. Now ends {recorded(new_end)}."
        + (f" {reason.strip()}" if reason and reason.strip() else ""),
    )
    db.session.commit()
    return lease


def _step_refusal(policy: Policy) -> str:
    if not policy.extend_step:
        return _("This lease cannot be extended now: this application's policy allows no extends.")
    return _(
        "Each extend of this deployment adds %(step)s; ask for that length, or for none.",
        step=spoken_duration(policy.extend_step),
    )


def _override_end(actor, lease, policy, now, by, reason):
    if not (actor.is_operator or actor.is_admin):
        raise NotFound(_("There is no such deployment among yours."))
    if not (reason or "").strip():
        raise InvalidPolicy(
            _("Say why this lease is extended past its policy; the owner is told."),
            field="reason",
        )
    if lease is None or lease.ends_at is None or lease.state not in (RUNNING, GRACE):
        raise ExtendRefused(_("This deployment has no running lease to extend."))
    step = by or policy.extend_step
    if not step:
        raise InvalidPolicy(_("Say how long to extend by."), field="by")
    new_end = max(lease.ends_at, now) + timedelta(minutes=step)
    cap_end = policy.cap_end(lease.started_at)
    return new_end, bool(cap_end and new_end > cap_end), lease.ends_at
