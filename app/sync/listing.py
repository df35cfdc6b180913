"""The sync worker's listing: read each identity's deployments at the orchestrator, to

- settle unconfirmed submissions: the orchestrator's record is matched to the portal's row by
  the callback URL sent with it (it carries the row's id and secret), or failing that by
  creation time and template text; a submission without a match after a grace period is
  NOT_LAUNCHED. Nothing is ever submitted twice;
- adopt deployments made elsewhere (another portal, the command line, before a restore) for
  people who call with their own identity;
- notice the portal's deployments that vanished there (confirmed with one direct call);
- refresh in passing every listed deployment the orchestrator updated since the last listing.
"""

from __future__ import annotations

import hmac
import logging
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app import claims
from app.auth.errors import TokenUnavailable
from app.auth.models import User
from app.backends.base import BackendError, NotFound
from app.clock import utcnow
from app.deployments import identity, remote, tracking, words
from app.deployments.errors import DeploymentError
from app.deployments.models import (
    NOT_LAUNCHED,
    SUBMITTING,
    UNCONFIRMED,
    VANISHED,
    Deployment,
    DeploymentListing,
)
from app.deployments.status import Status
from app.deployments.timeline import change_status, record_event
from app.extension_points import StateKey
from app.extensions import db
from app.sync import asking, identities

log = logging.getLogger(__name__)
CALLBACK_PATH = re.compile(r"/deployments/callback/(\d+)/([A-Za-z0-9_-]+)$")
# Statuses of rows the orchestrator is expected to hold.
_NOT_THERE = frozenset({NOT_LAUNCHED, VANISHED, SUBMITTING, UNCONFIRMED, Status.DELETED})
_ENSURED_KEY = StateKey("deployment listings ensured")
# How far apart the portal's and the orchestrator's clocks may put one submission.
_MATCH_WINDOW = timedelta(minutes=3)


@dataclass
class ListResult:
    listed: int = 0
    adopted: int = 0
    confirmed: int = 0
    not_launched: int = 0
    vanished: int = 0


def _ensure_listings() -> None:
    """Give every identity with deployments (or a stored token) its listing row. Done at most
    once per listing interval per process: new launches add theirs when they need it."""
    state = current_app.extensions.setdefault(_ENSURED_KEY, {"at": None})
    every = current_app.config["DEPLOYMENTS_SYNC_LIST_SECONDS"]
    if state["at"] is not None and time.monotonic() - state["at"] < every:
        return
    known = set(db.session.scalars(select(DeploymentListing.identity)))
    for key in identities.listing_identities():
        if key in known:
            continue
        try:
            with db.session.begin_nested():
                db.session.add(DeploymentListing(identity=key, next_at=utcnow(), failures=0))
        except IntegrityError:
            log.debug("Listing row %s added concurrently", key)  # by another worker: fine
    db.session.commit()
    state["at"] = time.monotonic()


def claim_listings() -> list[str]:
    """Claim the identities whose listing is due (``app.claims``), each held until its next
    turn."""
    _ensure_listings()
    now = utcnow()
    every = timedelta(seconds=current_app.config["DEPLOYMENTS_SYNC_LIST_SECONDS"])
    keys = claims.claim_due(
        DeploymentListing.identity,
        DeploymentListing.next_at <= now,
        take={"next_at": now + every},
    )
    db.session.commit()
    return keys


def _open_rows(key: str) -> tuple:
    return (
        # Its identity's rows: those held in it at the backend, whoever owns them now.
        identities.held_by(key),
        Deployment.backend == identity.split_key(key)[0],
        Deployment.deleted.is_(False),
        # A request waiting in line (WAITING) was never sent anywhere: nothing to match.
        Deployment.status.not_in((NOT_LAUNCHED, VANISHED, Status.WAITING)),
    )


def _known_rows(key: str) -> dict[str, tuple[int, str]]:
    """uuid: (id, status) of ``key``'s open rows with a uuid: three columns, no row loaded
    (the service identity may hold a hundred thousand)."""
    query = select(Deployment.uuid, Deployment.id, Deployment.status).where(
        *_open_rows(key), Deployment.uuid.is_not(None)
    )
    return {uuid: (row_id, status) for uuid, row_id, status in db.session.execute(query)}


def _pending_rows(key: str) -> list[Deployment]:
    """``key``'s open rows still without a uuid (launches awaiting their answer)."""
    query = select(Deployment).where(*_open_rows(key), Deployment.uuid.is_(None))
    return list(db.session.scalars(query))


def _load(ids) -> list[Deployment]:
    ids, rows = list(ids), []
    for start in range(0, len(ids), 1_000):
        chunk = ids[start : start + 1_000]
        rows += db.session.scalars(select(Deployment).where(Deployment.id.in_(chunk)))
    return rows


def _changed(state, status: str, since: datetime | None) -> bool:
    """Whether a listed deployment may have news for its row: its status differs, or the
    orchestrator updated it after the previous listing began (give or take the distance
    between the clocks; its times have minute precision). A listing that found it unchanged
    since then already applied it, so reading and rewriting its row again would change
    nothing."""
    if since is None or state.updated_at is None or state.phase != status:
        return True
    return state.updated_at >= since - _MATCH_WINDOW


def list_identity(key: str) -> ListResult:
    """List ``key``'s deployments at the orchestrator and settle the portal's rows with them.

    Never raises for orchestrator trouble: the listing is retried later, with back-off.
    """
    result = ListResult()
    at_backend = asking.listing_for(key)
    if at_backend is None:
        return result
    started = utcnow()
    previous = db.session.get(DeploymentListing, key)
    since = previous.listed_at if previous is not None else None
    try:
        with at_backend:
            states = at_backend.states()
            result.listed = len(states)
            unsettled = _settle(key, at_backend, states, started, since, result)
    except (BackendError, TokenUnavailable, DeploymentError) as error:
        db.session.rollback()
        _listing_failed(key, error)
        return result
    listing = db.session.get(DeploymentListing, key)
    if listing is not None:
        listing.listed_at, listing.failures = started, 0
        if unsettled:
            # Launches awaiting confirmation: look again soon rather than at the next turn.
            listing.next_at = min(listing.next_at, utcnow() + tracking.poll_interval())
    db.session.commit()
    return result


def _listing_failed(key: str, error: Exception) -> None:
    log.info("Sync: listing %s failed: %r", key, error)
    listing = db.session.get(DeploymentListing, key)
    if listing is not None:
        listing.failures = (listing.failures or 0) + 1
        listing.next_at = utcnow() + tracking.backoff(listing.failures)
    db.session.commit()


def _settle(
    key, at_backend: asking.IdentityListing, states, started: datetime, since, result: ListResult
) -> bool:
    """Apply the listing to ``key``'s rows; True while some launch is still unsettled.

    Its cost follows what changed: only the rows of deployments updated since the previous
    listing (``since``), of pending launches and of deployments missing from the listing are
    read whole. Missing ones are found against every open row's uuid (one narrow query), so a
    deployment that vanished is noticed however long ago it last changed.
    """
    known = _known_rows(key)
    pending = {row.id: row for row in _pending_rows(key)}
    unknown, changed = [], {}
    for state in states:
        seen = known.get(state.backend_id)
        if seen is not None:
            if _changed(state, seen[1], since):
                changed[seen[0]] = state
            continue
        row = _by_callback(state, pending) or _by_tag(state, pending)
        if row is None:
            unknown.append(state)
        else:
            _confirm(row, state, result, words.FOUND_BY_CALLBACK)
    for row in _load(changed):
        if row.claimed_until is None or row.claimed_until < started:
            tracking.apply_state(row, changed[row.id], source="sync")
    listed = {state.backend_id for state in states}
    unknown = _known_elsewhere(unknown)
    unknown = _settle_pending(at_backend, pending, unknown, started, result)
    name, own_key = identity.split_key(key)
    if own_key != identity.SERVICE and at_backend.adopts_made_elsewhere:
        _adopt(int(own_key.removeprefix("user:")), name, unknown, result)
    missing = [
        row_id
        for uuid, (row_id, status) in known.items()
        if uuid not in listed and status not in _NOT_THERE
    ]
    _check_vanished(at_backend, _load(missing), started, result)
    return any(
        row.uuid is None and row.status in (SUBMITTING, UNCONFIRMED) for row in pending.values()
    )


def _known_elsewhere(unknown: list) -> list:
    """Drop listed deployments the portal has a row for outside this identity's open rows
    (deleted, vanished, not launched): a vanished one that reappeared is tracked again."""
    if not unknown:
        return unknown
    uuids = [state.backend_id for state in unknown]
    rows = {
        row.uuid: row
        for row in db.session.scalars(select(Deployment).where(Deployment.uuid.in_(uuids)))
    }
    remaining = []
    for state in unknown:
        row = rows.get(state.backend_id)
        if row is None:
            remaining.append(state)
        elif not row.deleted:
            tracking.apply_state(row, state, source="sync")
    return remaining


def _by_callback(state, pending: dict[int, Deployment]) -> Deployment | None:
    match = CALLBACK_PATH.search(state.callback or "")
    if not match:
        return None
    row = pending.get(int(match.group(1)))
    if row is None or not row.reference_secret:
        return None
    return row if hmac.compare_digest(row.reference_secret, match.group(2)) else None


def _by_tag(state, pending: dict[int, Deployment]) -> Deployment | None:
    """The pending row a backend that keeps tags (rather than calling back) holds this
    deployment for."""
    if not state.tag:
        return None
    for row in pending.values():
        if row.reference_secret and hmac.compare_digest(remote.tag_of(row), state.tag):
            return row
    return None


def _confirm(row: Deployment, state, result: ListResult, how: str) -> None:
    record_event(row, row.status, source="sync", reason=how)
    row.uuid = state.backend_id
    tracking.apply_state(row, state, source="sync")
    result.confirmed += 1


def _settle_pending(at_backend, pending, unknown, started, result) -> list:
    """Match unconfirmed rows without a callback match by time and template; settle the rest.
    Returns the listed deployments still unaccounted for."""
    config = current_app.config
    grace = timedelta(seconds=config["DEPLOYMENTS_UNCONFIRMED_GRACE_SECONDS"])
    stale = timedelta(seconds=config["DEPLOYMENTS_SUBMITTING_STALE_SECONDS"])
    for row in pending.values():
        if row.uuid is not None:
            continue
        if row.status == SUBMITTING and started - row.submitted_at < stale:
            continue  # its launch is probably still waiting for the answer
        match = _by_time_and_template(at_backend, row, unknown)
        if match is not None:
            unknown.remove(match)
            _confirm(row, match, result, words.FOUND_BY_TIME)
        elif started - row.submitted_at >= grace:
            reason = words.NO_RECORD
            change_status(row, NOT_LAUNCHED, source="sync", reason=reason)
            row.status_reason, row.next_check_at = reason, None
            result.not_launched += 1
        elif row.status == SUBMITTING:
            reason = words.INTERRUPTED
            change_status(row, UNCONFIRMED, source="sync", reason=reason)
            row.status_reason = reason
    return unknown


def _by_time_and_template(at_backend: asking.IdentityListing, row: Deployment, unknown: list):
    if not row.submitted_at:
        return None
    for state in unknown:
        if state.callback or state.created_at is None:
            continue  # a record with a callback address was matched by it, or is not ours
        if abs(state.created_at - row.submitted_at) > _MATCH_WINDOW:
            continue
        try:
            if at_backend.template(state.backend_id).strip() == (row.template_text or "").strip():
                return state
        except BackendError:
            continue
    return None


def _adopt(user_id: int, backend: str, unknown: list, result: ListResult) -> None:
    """Record ``unknown`` deployments for their owner: the person the backend names as their
    maker, or the one whose identity listed them."""
    lister = db.session.get(User, user_id)
    if lister is None:
        return
    for state in unknown:
        user = identities.owner_of(state, backend) or lister
        if state.phase in (Status.DELETING, Status.DELETED):
            continue
        if CALLBACK_PATH.search(state.callback or "") and _callback_row_exists(state.callback):
            continue  # one of this portal's rows, owned by someone else's listing
        row = Deployment(
            user_id=user.id,
            name=f"Made elsewhere {state.backend_id[:8]}",
            template_slug="",
            backend=backend,
            template_name=words.MADE_ELSEWHERE,
            parameters={},
            request_options={},
            charge={},
            outputs={},
            adopted=True,
            submitted_at=state.created_at,
            created_at=state.created_at or utcnow(),
            check_failures=0,
        )
        record_event(
            row,
            state.phase,
            source="sync",
            reason=words.ADOPTED,
        )
        db.session.add(row)
        tracking.apply_state(row, state, source="sync")
        result.adopted += 1


def _callback_row_exists(callback: str) -> bool:
    match = CALLBACK_PATH.search(callback)
    return bool(match) and db.session.get(Deployment, int(match.group(1))) is not None


def _check_vanished(at_backend, missing: list[Deployment], started, result: ListResult) -> None:
    """Rows the listing lacks: confirmed gone with one direct call each."""
    recent = timedelta(seconds=current_app.config["DEPLOYMENTS_SUBMITTING_STALE_SECONDS"])
    for row in missing:
        if row.status in _NOT_THERE or (row.submitted_at and started - row.submitted_at < recent):
            continue
        try:
            state = at_backend.state(row.uuid)
        except NotFound:
            tracking.mark_gone(row, source="sync")
            result.vanished += 1
        except BackendError:
            continue
        else:
            tracking.apply_state(row, state, source="sync")
