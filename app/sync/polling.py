"""The sync worker's polling: ask backends about deployments in progress that are due.

Rows are claimed before anyone is asked, as every duty claims its rows (``app.claims``). A
claim is a lease (``claimed_until``), so no database lock is held
while a backend answers, and a worker that dies only delays its rows by the lease.
Calls run in a bounded thread pool (``asking.states_of``); everything touching the database
stays in the caller's thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import or_, select

from app import claims
from app.backends.base import NotFound
from app.clock import utcnow
from app.deployments import tracking
from app.deployments.models import Deployment
from app.extensions import db
from app.sync import asking

log = logging.getLogger(__name__)


@dataclass
class PollResult:
    checked: int = 0
    changed: int = 0
    failed: int = 0


def unclaimed(now):
    return or_(Deployment.claimed_until.is_(None), Deployment.claimed_until < now)


def claim_due(limit: int, due_by: datetime | None = None) -> list[Deployment]:
    """Claim up to ``limit`` deployments due for a check by ``due_by`` (default: now) that no
    other worker holds (``app.claims``), each for DEPLOYMENTS_SYNC_LEASE_SECONDS."""
    now = utcnow()
    due_by = min(due_by or now, now)
    lease = now + timedelta(seconds=current_app.config["DEPLOYMENTS_SYNC_LEASE_SECONDS"])
    ids = claims.claim_due(
        Deployment.id,
        Deployment.next_check_at <= due_by,
        Deployment.uuid.is_not(None),
        Deployment.deleted.is_(False),
        unclaimed(now),
        order_by=(Deployment.next_check_at,),
        limit=limit,
        take={"claimed_until": lease},
    )
    db.session.commit()
    if not ids:
        return []
    return list(db.session.scalars(select(Deployment).where(Deployment.id.in_(ids))))


def poll_due(limit: int | None = None, due_by: datetime | None = None) -> PollResult:
    """Claim the deployments due for a check by ``due_by`` and ask the orchestrator about each,
    at most DEPLOYMENTS_SYNC_CONCURRENCY at once. Failures back off; a 404 marks the row gone.
    """
    config = current_app.config
    rows = claim_due(limit or config["DEPLOYMENTS_SYNC_BATCH"], due_by)
    result = PollResult()
    if not rows:
        return result
    for row, answer in asking.states_of(rows, config["DEPLOYMENTS_SYNC_CONCURRENCY"]):
        result.checked += 1
        _store(row, answer, result)
    db.session.commit()
    return result


def _store(row: Deployment, answer, result: PollResult) -> None:
    if isinstance(answer, NotFound):
        tracking.mark_gone(row, source="sync")
        result.changed += 1
    elif isinstance(answer, Exception):
        tracking.check_failed(row)
        result.failed += 1
    else:
        result.changed += tracking.apply_state(row, answer, source="sync")
