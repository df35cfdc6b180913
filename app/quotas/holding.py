"""Which deployments hold resources against quotas: the one rule, in Python and in SQL.

Every deployment stores what it was charged at launch (``Deployment.charge``). A user's usage
is the sum of the charges of their deployments that *hold*; a group pool's usage is the sum
over the deployments charged to the group. Nothing is ever "released" by hand: a deployment
stops holding when its record says so, which keeps usage right whatever path the status took.

A deployment holds unless one of these is true:

- it is deleted in the portal (``deleted``), or the orchestrator finished deleting it
  (deleted);
- nothing was created: the orchestrator clearly refused it or was never reached
  (NOT_LAUNCHED), or it no longer knows it (VANISHED), or it waits in line for the resources
  it needs (WAITING: charged only once admitted, see ``app.lines``);
- it is a batch job that runs once (``runs_once``) and has finished for good: it succeeded
  (ready) or failed. Chronos runs nothing of it any more, so a
  person with a one-GPU limit may launch the next job without deleting the last. A repeating
  job holds until it is deleted, between its runs too: its next run needs the same room;
- it failed to create and was not launched keeping its failed attempt: the
  backend then tears down what it had started. Kept at launch (a request option), the failed
  infrastructure is kept for inspection, so it keeps holding until deleted.

So a submission still under way (SUBMITTING) and one whose answer was lost (UNCONFIRMED) hold:
the orchestrator may well be creating it, and the sync worker settles which it is. A deletion
that failed or is in progress holds too, since the resources may still exist.
"""

from __future__ import annotations

from sqlalchemy import and_, or_

from app.deployments.models import Deployment
from app.deployments.status import JOB_FINISHED, RELEASED, WAITS, Status, holds_resources

FAILED = Status.FAILED  # a failed create: held only when its attempt is kept
RELEASED_STATUSES = RELEASED


def kept_after_failure(deployment: Deployment) -> bool:
    """Whether the deployment was launched asking the orchestrator to keep a failed attempt."""
    return bool(deployment.keeps_failed_attempt)


def holds(deployment: Deployment) -> bool:
    """Whether ``deployment`` holds resources against its owner's (and group's) quota."""
    return holds_resources(
        deployment.status,
        deleted=bool(deployment.deleted),
        keeps_failed_attempt=kept_after_failure(deployment),
        runs_once=bool(deployment.runs_once),
    )


def holding_clause():
    """The same rule as ``holds``, as a SQL condition on the deployments table."""
    return and_(
        Deployment.deleted.is_(False),
        Deployment.status.not_in(sorted(RELEASED_STATUSES | WAITS)),
        or_(Deployment.status != FAILED, Deployment.keeps_failed_attempt.is_(True)),
        or_(Deployment.runs_once.is_(False), Deployment.status.not_in(sorted(JOB_FINISHED))),
    )
