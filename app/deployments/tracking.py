"""Storing what the orchestrator says about a deployment, and when to ask it again.

Every writer of orchestrator news (the launch, the callback, the sync worker) goes through
``apply_state`` so that each status change lands in the timeline and secret outputs are sealed.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy.exc import IntegrityError

from app.backends.base import RemoteState
from app.clock import utcnow
from app.deployments import said, words
from app.deployments.models import VANISHED, Deployment, DeploymentListing
from app.deployments.revisions import parsed_template
from app.deployments.secrets import seal, split_outputs, unseal
from app.deployments.status import Status
from app.deployments.timeline import change_status
from app.extensions import db


def poll_interval() -> timedelta:
    return timedelta(seconds=current_app.config["DEPLOYMENTS_SYNC_INTERVAL_SECONDS"])


def backoff(failures: int) -> timedelta:
    """How long to wait before asking again after ``failures`` failed checks in a row."""
    config = current_app.config
    seconds = config["DEPLOYMENTS_SYNC_INTERVAL_SECONDS"] * 2 ** min(failures, 16)
    return timedelta(seconds=min(seconds, config["DEPLOYMENTS_SYNC_MAX_BACKOFF_SECONDS"]))


def _store_outputs(deployment: Deployment, outputs: dict) -> None:
    clear, secret = split_outputs(parsed_template(deployment.revision_id), outputs)
    if clear != (deployment.outputs or {}):
        deployment.outputs = clear
    if secret:
        known = unseal(deployment.secret_outputs_sealed)
        # Sealing again only on change: each sealing differs, and rewrites the row.
        if {**known, **secret} != known:
            deployment.secret_outputs_sealed = seal({**known, **secret})


def _keep_data(deployment: Deployment, data: dict) -> None:
    """Merge what the backend wants kept (``RemoteState.data``) into the record's; written
    only on change, so that a listing that changes nothing rewrites no row."""
    if not data:
        return
    kept = {**(deployment.backend_data or {}), **data}
    kept = {key: value for key, value in kept.items() if value is not None}
    if kept != (deployment.backend_data or {}):
        deployment.backend_data = kept


def apply_state(deployment: Deployment, state: RemoteState, *, source: str) -> bool:
    """Copy what the deployment's backend says onto ``deployment`` (a timeline entry for a
    status change, secret outputs sealed) and schedule the next check. True if the status
    changed. The caller commits."""
    now = utcnow()
    # Bounded whoever brought it (a backend's callback is not read through ``remote``).
    state = said.state(state)
    if deployment.uuid is None:
        deployment.uuid = state.backend_id
    # Everything the answer brings is on the record before the status moves: the timeline
    # entry's notice (written at the next flush, which reading the template for the outputs
    # may cause) tells what the record holds then, the ways in of a Ready one included.
    deployment.status_reason = state.reason
    deployment.backend_state = state.raw_state
    _keep_data(deployment, state.data)
    deployment.site = state.site or deployment.site
    deployment.region = state.region or deployment.region
    deployment.deployment_type = state.kind or deployment.deployment_type
    if state.outputs:
        _store_outputs(deployment, state.outputs)
    changed = change_status(deployment, state.phase, source=source, reason=state.reason)
    if state.phase == Status.DELETED:
        _mark_deleted(deployment, now)
    deployment.checked_at, deployment.check_failures = now, 0
    deployment.claimed_until = None
    deployment.next_check_at = now + poll_interval() if deployment.in_progress else None
    return changed


def _mark_deleted(deployment: Deployment, now: datetime) -> None:
    deployment.deleted = True
    deployment.deleted_at = deployment.deleted_at or now
    deployment.next_check_at = None


def mark_gone(deployment: Deployment, *, source: str) -> None:
    """The backend answers that it does not know ``deployment``: deleted, if a delete was
    under way, else VANISHED. The caller commits."""
    now = utcnow()
    if deployment.status == Status.DELETING:
        change_status(
            deployment,
            Status.DELETED,
            source=source,
            reason=words.DELETE_FINISHED,
        )
        deployment.status_reason = None
        _mark_deleted(deployment, now)
    else:
        reason = words.GONE
        change_status(deployment, VANISHED, source=source, reason=reason)
        deployment.status_reason = reason
        deployment.next_check_at = None
    deployment.checked_at, deployment.claimed_until = now, None


def check_failed(deployment: Deployment) -> None:
    """A check of ``deployment`` failed: ask again later, later each time. The caller commits."""
    deployment.check_failures = (deployment.check_failures or 0) + 1
    deployment.claimed_until = None
    deployment.next_check_at = utcnow() + backoff(deployment.check_failures)


def list_soon(identity: str) -> None:
    """Have the sync worker list ``identity``'s deployments at its next pass. The caller
    commits."""
    listing = db.session.get(DeploymentListing, identity)
    if listing is not None:
        listing.next_at = utcnow()
        return
    try:
        with db.session.begin_nested():
            db.session.add(DeploymentListing(identity=identity, next_at=utcnow(), failures=0))
    except IntegrityError:  # another worker added it just now
        db.session.get(DeploymentListing, identity).next_at = utcnow()
