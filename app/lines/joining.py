"""Joining the line: a request that waits is recorded charged nothing, with its place (moved
back by the fair-share rule), what it will be submitted with, and why it waits; a change of a
waiting request keeps the place of the one it changes, which then leaves the line.

Whether a request waits is the launch decision's (``app.launch.decision``); this module only
keeps the line's books. Nothing here commits: the launch that puts a request in line commits.
"""

from __future__ import annotations

from flask import current_app

from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.secrets import seal
from app.deployments.status import Status
from app.deployments.timeline import record_event
from app.extensions import db
from app.lines import fairness, settings, wording
from app.lines.changing import NotWaiting
from app.lines.models import LineEntry
from app.lines.operations import held_entry, out_of_line
from app.lines.places import Line
from app.quotas.usage_history import recent_gpu_hours


def enter(
    deployment: Deployment,
    user: User,
    line: Line,
    *,
    reason: str,
    joined: str,
    parameters: dict,
    options: dict,
) -> Deployment:
    """Add ``deployment`` (built, not yet in the session) to the session as WAITING in
    ``line``, saying why (``reason``, kept with its place; ``joined``, its timeline entry).
    ``parameters`` are every value it will be submitted with (sealed); ``options`` what it was
    launched with beyond them (generated secret names, lease minutes, whether to remember the
    values). Does not commit."""
    now = enqueued_at = utcnow()
    hours = 0.0
    if current_app.config["LINE_FAIR_SHARE"]:
        hours = recent_gpu_hours(user.id, now - settings.fair_share_window(), now)
    moved = fairness.penalty(
        hours,
        float(current_app.config["LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR"]),
        settings.fair_share_max_delay(),
    )
    deployment.submitted_at = None
    record_event(
        deployment,
        Status.WAITING,
        source="launch",
        reason=joined,
        actor=user,
        kind=wording.JOINED_KIND,
        details={"line": line.key},
    )
    db.session.add(deployment)
    db.session.flush()
    db.session.add(
        LineEntry(
            deployment_id=deployment.id,
            user_id=user.id,
            line=line.key,
            enqueued_at=enqueued_at,
            fair_at=enqueued_at + moved,
            expires_at=now + settings.max_wait(),
            recent_gpu_hours=round(hours, 3),
            inputs_sealed=seal(parameters),
            options=options,
            reason=reason,
        )
    )
    return deployment


def place_of(entry: LineEntry) -> tuple:
    """The place of a waiting request in its line, for a change of it to keep."""
    return (entry.enqueued_at, entry.fair_at, entry.placed_at, entry.recent_gpu_hours)


def replace(user: User, replaces: int, changed: Deployment, place: tuple) -> None:
    """``changed`` (launched, or waiting: then with ``place``) replaces ``user``'s waiting
    request ``replaces``, which leaves the line, deleted; commits. Nothing leaves when it no
    longer waits (admitted or left while it was being changed)."""
    if changed.status == Status.WAITING:
        # The change keeps the place of the request it changes, fair share and any operator's
        # move included: GPU-hours held since it joined do not move it back.
        placed = db.session.get(LineEntry, changed.id)
        placed.enqueued_at, placed.fair_at, placed.placed_at, placed.recent_gpu_hours = place
    try:
        old = held_entry(replaces)
    except NotWaiting:
        db.session.commit()
        return
    out_of_line(
        old,
        Status.NOT_LAUNCHED,
        source="user",
        actor=user,
        reason=wording.CHANGED,
        kind=wording.CHANGED_KIND,
    )
    old.deployment.deleted, old.deployment.deleted_at = True, utcnow()
    db.session.commit()
