"""The sync worker's polling: ask the orchestrator about deployments in progress that are due.

Rows are claimed before anyone is asked: on PostgreSQL with ``SELECT ... FOR UPDATE SKIP
LOCKED`` (rows another worker is claiming are skipped), on SQLite (a single writer) with a
compare-and-set update. A claim is a lease (``claimed_until``), so no database lock is held
while the orchestrator answers, and a worker that dies only delays its rows by the lease.
Calls run in a bounded thread pool; everything touching the database stays in the caller's
thread.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import or_, select, update

from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends.paas import schemas
from app.backends.paas.client import OrchestratorClient
from app.backends.paas.errors import DeploymentNotFound, OrchestratorError
from app.clock import utcnow
from app.deployments import identity, tracking
from app.deployments.errors import DeploymentError
from app.deployments.models import Deployment
from app.extensions import db

log = logging.getLogger(__name__)

# Rounds of looking for unclaimed rows when another worker took every candidate found.
_CLAIM_ATTEMPTS = 5


@dataclass
class PollResult:
    checked: int = 0
    changed: int = 0
    failed: int = 0


def on_postgres() -> bool:
    return db.engine.dialect.name == "postgresql"


def unclaimed(now):
    return or_(Deployment.claimed_until.is_(None), Deployment.claimed_until < now)


def claim_due(limit: int, due_by: datetime | None = None) -> list[Deployment]:
    """Claim up to ``limit`` deployments due for a check by ``due_by`` (default: now) that no
    other worker holds."""
    now = utcnow()
    due_by = min(due_by or now, now)
    lease = now + timedelta(seconds=current_app.config["DEPLOYMENTS_SYNC_LEASE_SECONDS"])
    query = (
        select(Deployment.id)
        .where(
            Deployment.next_check_at <= due_by,
            Deployment.uuid.is_not(None),
            Deployment.deleted.is_(False),
            unclaimed(now),
        )
        .order_by(Deployment.next_check_at)
        .limit(limit)
    )
    if on_postgres():
        ids = list(db.session.scalars(query.with_for_update(skip_locked=True)))
        if ids:
            db.session.execute(
                update(Deployment).where(Deployment.id.in_(ids)).values(claimed_until=lease)
            )
    else:
        ids = _compare_and_claim(query, now, lease)
    db.session.commit()
    if not ids:
        return []
    return list(db.session.scalars(select(Deployment).where(Deployment.id.in_(ids))))


def _compare_and_claim(query, now, lease) -> list[int]:
    """SQLite: claim candidates one by one, each only if still unclaimed. Candidates all taken
    by another worker meanwhile mean looking again, not that nothing is due."""
    for _attempt in range(_CLAIM_ATTEMPTS):
        candidates = db.session.scalars(query).all()
        if not candidates:
            return []
        ids = []
        for candidate in candidates:
            taken = db.session.execute(
                update(Deployment)
                .where(Deployment.id == candidate, unclaimed(now))
                .values(claimed_until=lease)
                .execution_options(synchronize_session=False)
            )
            if taken.rowcount == 1:
                ids.append(candidate)
        if ids:
            return ids
        db.session.commit()
    return []


class ThreadClients:
    """One client per worker thread (a requests session is not shared), for one token."""

    def __init__(self, template: OrchestratorClient, token: str):
        self.template, self.token = template, token
        self._local = threading.local()

    def get(self) -> OrchestratorClient:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = self.template.with_token(self.token)
        return client


def _ask(clients: ThreadClients, uuid: str):
    """The deployment's JSON, or the exception the call raised (run in a pool thread)."""
    try:
        return clients.get().get_deployment(uuid)
    except (OrchestratorError, ValueError) as error:
        return error


def _clients_by_identity(rows: list[Deployment]) -> dict[str, tuple[ThreadClients | None, list]]:
    grouped: dict[str, list[Deployment]] = defaultdict(list)
    users: dict[str, User] = {}
    for row in rows:
        key = identity.identity_of(row.user)
        grouped[key].append(row)
        users.setdefault(key, row.user)
    result = {}
    for key, members in grouped.items():
        try:
            # The token is read here, in the thread owning the database session.
            with identity.client_for(users[key]) as template:
                token = template.token_provider()
            result[key] = (ThreadClients(template, token), members)
        except (TokenUnavailable, DeploymentError) as error:
            log.info("Sync: no usable token for %s: %s", key, error.message)
            result[key] = (None, members)
    return result


def poll_due(limit: int | None = None, due_by: datetime | None = None) -> PollResult:
    """Claim the deployments due for a check by ``due_by`` and ask the orchestrator about each,
    at most DEPLOYMENTS_SYNC_CONCURRENCY at once. Failures back off; a 404 marks the row gone.
    """
    config = current_app.config
    rows = claim_due(limit or config["DEPLOYMENTS_SYNC_BATCH"], due_by)
    result = PollResult()
    if not rows:
        return result
    jobs = []
    with ThreadPoolExecutor(max_workers=config["DEPLOYMENTS_SYNC_CONCURRENCY"]) as pool:
        for clients, members in _clients_by_identity(rows).values():
            for row in members:
                future = pool.submit(_ask, clients, row.uuid) if clients else None
                jobs.append((row, future))
        for row, future in jobs:
            answer = future.result() if future is not None else TokenUnavailable("no token")
            result.checked += 1
            _store(row, answer, result)
    db.session.commit()
    return result


def _store(row: Deployment, answer, result: PollResult) -> None:
    if isinstance(answer, DeploymentNotFound):
        tracking.mark_gone(row, source="sync")
        result.changed += 1
    elif isinstance(answer, Exception):
        tracking.check_failed(row)
        result.failed += 1
    else:
        try:
            state = schemas.DeploymentState.from_json(answer)
        except ValueError:
            tracking.check_failed(row)
            result.failed += 1
            return
        result.changed += tracking.apply_state(row, state, source="sync")
