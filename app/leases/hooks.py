"""Where leases meet deployments' status changes without the deployments feature knowing them:
a session listener watching new timeline entries, in the transaction that records them.

A deployment becoming ready starts its lease's clock (with the policy's default if none was
chosen, e.g. when adopted); failing to create schedules its removal; being gone ends the lease.
A batch job that runs once has finished for good when it succeeds or fails: it holds nothing
(``app.deployments.status.finished_for_good``), so its lease ends there, with no clock and no
removal to come.
Status changes are recorded once (compare-and-set in ``app.deployments.timeline``), so each of
these happens once too.
"""

from __future__ import annotations

from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.status import Status, finished_for_good
from app.extensions import db, listen_once

_WATCHED = (Status.READY, Status.FAILED, Status.DELETED)


def _changes(session) -> list[tuple[Deployment, DeploymentEvent]]:
    found = []
    for item in list(session.new):
        if not isinstance(item, DeploymentEvent) or item.kind is not None:
            continue
        if item.to_status not in _WATCHED or item.to_status == item.from_status:
            continue
        deployment = item.deployment
        if deployment is None and item.deployment_id is not None:
            with session.no_autoflush:
                deployment = session.get(Deployment, item.deployment_id)
        if deployment is not None:
            found.append((deployment, item))
    return found


def _before_flush(session, _context, _instances) -> None:
    from app.leases import operations

    for deployment, change in _changes(session):
        if finished_for_good(change.to_status, runs_once=bool(deployment.runs_once)):
            operations.finished(deployment, session)
        elif change.to_status == Status.READY and not deployment.deleted:
            operations.start(deployment, change.source, session)
        elif change.to_status == Status.FAILED:
            operations.failed(deployment, session)
        elif change.to_status == Status.DELETED:
            operations.finished(deployment, session)


def listen() -> None:
    """Watch the portal's sessions for the status changes a lease follows."""
    listen_once(db.session, "before_flush", _before_flush)
