"""Taking over a deployment whose owner's account is disabled: a co-owner, a manager of its
group or an admin becomes its owner (``access.Action.TAKE_OVER`` says who may, and when).

The deployment keeps running as it is; what changes is whose it is. Its backend goes on
being asked about it as the identity it was made with (a backend lets only a deployment's
maker act on it): the previous owner stays its holder there (``Deployment.backend_holder_id``,
``identity.holder_of``), so that the new owner, the lease's end and the sync worker can still
delete it, follow it and read its log.

It is charged from then on to the new owner, and to its group when they are in it (otherwise
to the group they launch with by default), only if it fits that person's quota and group
pool, and the budgets of each, for what is left of its lease, as a launch of it would be asked
(``fits_new_owner``). The old owner's charge is released by the same change: usage is read
from the deployments' records (``app.quotas.holding``), and the running usage totals follow
``user_id`` and ``group_name`` from this moment (``app.quotas.usage_marks``): what it used
before stays the old owner's.

Locks, in the order every launch from the line takes them: the deployment's row first (a
second taker waits there, then finds it taken and is refused), then the new owner's and the
group's limit rows, as a launch takes them (no launch racing with the take-over can pass a
limit). The change is on the timeline with who made it; the taker's own share, now redundant,
is removed, and every other share stays. ``take_over`` commits.
"""

from __future__ import annotations

from datetime import timedelta

from flask_babel import gettext as _
from sqlalchemy import delete, select

from app.auth.models import User
from app.clock import utcnow
from app.deployments import access, identity
from app.deployments.access import Action
from app.deployments.models import Deployment, DeploymentShare
from app.deployments.timeline import actor_source, record_event
from app.errors import NotAllowed, NotFound
from app.extensions import db
from app.launch.checks import chosen_group
from app.launch.constraints import budget
from app.launch.take_over_words import TAKEN_OVER, misfit_words, over_budget_words
from app.locks import lock_rows
from app.quotas.budgets import budget_left
from app.quotas.errors import OverBudget, QuotaExceeded
from app.quotas.holding import holds
from app.quotas.operations import assess_launch, lock_for_launch, uncountable_refusal

__all__ = ["TAKEN_OVER", "take_over"]


class TakenAlready(NotFound):
    """Someone else took the deployment over a moment before; nothing changed. Answered as
    any deployment one may not take over (404 for the API)."""


class CannotTakeOver(NotAllowed):
    """This deployment cannot change hands at all (see ``_blocker``: a request waiting in
    line); the message says why."""


class DoesNotFit(QuotaExceeded):
    """The deployment does not fit the new owner's quota or the pool of ``group``, the group
    it would be charged to: ``assessments`` are the bars of each (``app.quotas.fit``), for
    scripts."""

    def __init__(self, message: str, group: str | None, assessments: list):
        super().__init__(message)
        self.group, self.assessments = group, assessments


def charged_group(taker: User, deployment: Deployment) -> str | None:
    """The group the deployment is charged to once ``taker`` owns it: its own when they are
    in it, else the one they launch with by default (``checks.chosen_group``)."""
    if deployment.group_name and deployment.group_name in identity.groups_for(taker):
        return deployment.group_name
    return chosen_group(taker, None)


def _blocker(deployment: Deployment) -> str | None:
    """Why ``deployment`` cannot change hands, or None: a request waiting in line is not yet
    charged anything, nor made anywhere."""
    if deployment.waiting:
        return _(
            "A request waiting in line cannot be taken over; launch it again as yourself "
            "instead. Nothing changed."
        )
    return None


def _hours_left(deployment: Deployment) -> float | None:
    """The hours it still runs for (to its lease's end); None: its lease never ends."""
    end = budget.lease_ends([deployment.id]).get(deployment.id)
    if end is None:
        return None
    return max((end - utcnow()) / timedelta(hours=1), 0.0)


def fits_new_owner(taker: User, group: str | None, deployment: Deployment) -> None:
    """Whether ``deployment`` fits ``taker``'s quota and ``group``'s pool, and their budgets
    for the rest of its lease, leaving the deployment itself out of what is held and of what
    is still to run. Raises DoesNotFit or OverBudget (with each budget's numbers) in words
    that name the limit; reads only (callers hold the locks)."""
    charge = deployment.charge or {}
    refusal = uncountable_refusal(taker, group, charge)
    if refusal:
        raise DoesNotFit(refusal, group, [])
    assessments = assess_launch(taker, group, charge, excluding=deployment.id)
    short = [(a, a.misfits()) for a in assessments if a.misfits()]
    if short:
        raise DoesNotFit(misfit_words(short), group, assessments)

    checks = budget_left(
        taker,
        group,
        charge,
        _hours_left(deployment),
        utcnow(),
        committed=budget.committed_hours(excluding=deployment.id),
    )
    over = [check for check in checks if not check.fits]
    if over:
        error = OverBudget(over)
        error.message = over_budget_words(over)
        raise error


def take_over(taker: User, deployment_id: int) -> Deployment:
    """Make ``taker`` the owner of deployment ``deployment_id`` (see the module), and commit.

    Raises NotFound when they may not take it over (TakenAlready when someone else just did),
    CannotTakeOver when it cannot change hands, DoesNotFit or OverBudget when it does not fit
    them: then nothing changed and the session is rolled back.
    """
    deployment = access.deployment_for(taker, deployment_id, Action.TAKE_OVER)
    before = deployment.user_id
    try:
        lock_rows(select(Deployment.id).where(Deployment.id == deployment.id))
        db.session.refresh(deployment)
        db.session.refresh(deployment.user)  # its owner's account, as it is now
        access.forget_cached()
        if deployment.user_id != before:
            raise TakenAlready(
                _("Someone else took this deployment over a moment ago; nothing changed.")
            )
        access.check(taker, deployment, Action.TAKE_OVER)
        if blocker := _blocker(deployment):
            raise CannotTakeOver(blocker)
        group = charged_group(taker, deployment)
        lock_for_launch(taker.id, group)
        if holds(deployment):
            fits_new_owner(taker, group, deployment)
        old_owner, old_group = deployment.user, deployment.group_name
        record_event(
            deployment,
            None,
            source=actor_source(taker, deployment),
            actor=taker,
            kind=TAKEN_OVER,
            details={
                "from": old_owner.username,
                "to": taker.username,
                "group": group,
                "previous_group": old_group,
            },
        )
        # Its backend still holds it in the name it was made with, and lets only that identity
        # act on it: every call about it goes on being made as its holder.
        holder = identity.holder_of(deployment)
        deployment.backend_holder_id = None if holder.id == taker.id else holder.id
        deployment.user_id, deployment.group_name = taker.id, group
        db.session.execute(
            delete(DeploymentShare).where(
                DeploymentShare.deployment_id == deployment.id,
                DeploymentShare.kind == "user",
                DeploymentShare.user_id == taker.id,
            )
        )
        db.session.flush()
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise
    access.forget_cached()
    db.session.refresh(deployment)
    return deployment
