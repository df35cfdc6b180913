"""What people do with the line: wait in it (or launch at once when the request fits), leave
it, change their request; what operators do: move a request or remove it, with a reason the
owner is told. Each operation commits.

A request's row is locked before it leaves the line (``app.locks.lock_rows``), and the
admission pass takes the same lock, so a request leaves the line once: admitted, left,
dropped or removed, whichever comes first.
"""

from __future__ import annotations

from datetime import timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.models import User
from app.catalogue.loader import Entry
from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.secrets import seal
from app.deployments.status import Status
from app.deployments.timeline import actor_source, record_event
from app.errors import PortalError
from app.extensions import db
from app.launch import workflow
from app.launch.decision import NoSiteRoom
from app.leases import operations as lease_operations
from app.quotas.errors import KeptForLine, QuotaExceeded
from app.quotas.fit import could_wait, refusal_message
from app.quotas.operations import assess_launch, uncountable_refusal
from app.quotas.usage_history import recent_gpu_hours
from app.waiting import ahead, changing, fairness, lines, settings, wording
from app.waiting.capacity import capacity_known, room_checker
from app.waiting.changing import NotWaiting
from app.waiting.models import LineEntry


class CannotWait(QuotaExceeded):
    """The request is over a limit by itself: it could never fit, so it may not wait."""


def can_wait(user: User, group_name: str | None, charge: dict) -> bool:
    """Whether a launch of ``charge`` could wait in line: it is short only of what running
    deployments hold, or its quotas let it start but requests already waiting come first
    (``ahead``) or no known site has room for it now."""
    if not current_app.config["QUEUE_ENABLED"]:
        return False
    if uncountable_refusal(user, group_name, charge):
        return False
    assessments = assess_launch(user, group_name, charge)
    if could_wait(assessments):
        return True
    if any(a.misfits() for a in assessments):
        return False  # over a limit by itself
    if ahead.line_ahead(user.id, group_name, charge):
        return True
    return not room_checker()(charge)


def kept_for_line(user: User, group_name: str | None, charge: dict) -> str | None:
    """Why a launch its quotas let start is kept for requests already waiting (a sentence
    offering the line), or None when it may start now."""
    kept = ahead.line_ahead(user.id, group_name, charge)
    return kept.sentence() if kept else None


def wait_or_launch(
    user: User,
    entry: Entry,
    parameters: dict,
    *,
    name: str | None = None,
    group: str | None = None,
    generated=frozenset(),
    remember: bool = False,
    lease_minutes: int | None = None,
    replaces: int | None = None,
    site: str | None = None,
) -> Deployment:
    """Launch at once when the request fits (as ``workflow.launch``), else wait in line.
    ``replaces`` names a waiting request of the same person this one changes: it leaves the
    line once the change is launched or waits, and a change that waits keeps its place.

    Returns the deployment: launched, or WAITING. Raises QuotaExceeded (CannotWait) when it
    could never fit, NotWaiting when the request it changes no longer waits, or LaunchError
    as a launch does.
    """
    if replaces is None and capacity_known():
        # Whether a site has room is known only once the request is counted: ``join``
        # launches it at once when it fits and has room.
        return join(
            user,
            entry,
            parameters,
            name=name,
            group=group,
            generated=generated,
            remember=remember,
            lease_minutes=lease_minutes,
            site=site,
        )
    if replaces is not None:
        return _change(
            user,
            entry,
            parameters,
            replaces,
            name=name,
            group=group,
            generated=generated,
            remember=remember,
            lease_minutes=lease_minutes,
            site=site,
        )
    try:
        return workflow.launch(
            user,
            entry,
            parameters,
            name=name,
            group=group,
            generated=generated,
            remember=remember,
            on_recorded=lambda d: lease_operations.choose(d, minutes=lease_minutes),
            site=site,
        )
    except (QuotaExceeded, NoSiteRoom):
        pass
    return join(
        user,
        entry,
        parameters,
        name=name,
        group=group,
        generated=generated,
        remember=remember,
        lease_minutes=lease_minutes,
        site=site,
    )


def _change(user: User, entry: Entry, parameters: dict, replaces: int, **options) -> Deployment:
    earlier = changing.claim(replaces, user.id)  # a second change (another tab) is refused
    place = (earlier.enqueued_at, earlier.fair_at, earlier.placed_at, earlier.recent_gpu_hours)
    try:
        with ahead.taking_place_of(replaces):
            changed = wait_or_launch(user, entry, parameters, **options)
    except BaseException:
        changing.release(replaces, user.id)
        raise
    if changed.status == Status.WAITING:
        # The change keeps the place of the request it changes, fair share and any operator's
        # move included: GPU-hours held since it joined do not move it back.
        placed = db.session.get(LineEntry, changed.id)
        placed.enqueued_at, placed.fair_at, placed.placed_at, placed.recent_gpu_hours = place
    try:
        old = held_entry(replaces)
    except NotWaiting:
        db.session.commit()
        return changed
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
    return changed


def join(
    user: User,
    entry: Entry,
    parameters: dict,
    *,
    name: str | None = None,
    group: str | None = None,
    generated=frozenset(),
    remember: bool = False,
    lease_minutes: int | None = None,
    enqueued_at=None,
    site: str | None = None,
) -> Deployment:
    """Record the request as waiting in line, charged nothing; commits. ``enqueued_at`` keeps
    an earlier place (a changed request); ``site``, the site picked, goes with it.

    Raises CannotWait when it is over a limit by itself (or of unknown cost where that is
    refused), and LaunchError as a launch does.
    """
    generated = set(generated)
    deployment, full = workflow.prepare(
        user, entry, parameters, name=name, group=group, generated=generated, site=site
    )
    generated |= {key for key in full if key not in parameters}
    refusal = uncountable_refusal(user, deployment.group_name, deployment.charge)
    if refusal:
        raise CannotWait(refusal)
    assessments = assess_launch(user, deployment.group_name, deployment.charge)
    line = lines.line_of(user.id, assessments)
    reason = " ".join(refusal_message(a, a.misfits()) for a in assessments if a.misfits())
    if not could_wait(assessments):
        short = next((a for a in assessments if a.misfits()), None)
        if short is not None:
            raise CannotWait(
                refusal_message(short, short.misfits())
                + " "
                + _("It is over the limit by itself, so it cannot wait in line.")
            )
        kept = ahead.line_ahead(user.id, deployment.group_name, deployment.charge)
        if kept is None and room_checker()(deployment.charge):
            try:  # it fits now: nothing to wait for
                return workflow.launch(
                    user,
                    entry,
                    full,
                    name=name,
                    group=group,
                    generated=generated,
                    remember=remember,
                    on_recorded=lambda d: lease_operations.choose(d, minutes=lease_minutes),
                    site=site,
                )
            except (KeptForLine, NoSiteRoom):
                # Someone joined the line since, or the sites filled: this one waits.
                kept = ahead.line_ahead(user.id, deployment.group_name, deployment.charge)
                deployment, full = workflow.prepare(
                    user, entry, full, name=name, group=group, generated=generated, site=site
                )
        if kept is not None:
            line, reason, joined = kept.line, kept.sentence(), wording.JOINED_BEHIND
        else:
            line, reason = lines.site_line(deployment.charge), wording.no_site_has_room()
            joined = wording.JOINED_FOR_ROOM
    else:
        joined = wording.JOINED
    now = utcnow()
    enqueued_at = enqueued_at or now
    hours = 0.0
    if current_app.config["QUEUE_FAIR_SHARE"]:
        hours = recent_gpu_hours(user.id, now - settings.fair_share_window(), now)
    moved = fairness.penalty(
        hours,
        float(current_app.config["QUEUE_FAIR_SHARE_MINUTES_PER_GPU_HOUR"]),
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
            inputs_sealed=seal(full),
            options={
                "generated": sorted(generated),
                "lease_minutes": lease_minutes,
                "remember": remember,
            },
            reason=reason,
        )
    )
    db.session.commit()
    return deployment


def held_entry(deployment_id: int) -> LineEntry:
    """Lock ``deployment_id``'s row for this transaction and return its line entry.

    Raises NotWaiting (rolled back) when it no longer waits.
    """
    entry, deployment = changing.locked_request(deployment_id)
    if entry is not None and (deployment.status != Status.WAITING or deployment.deleted):
        # Left some other way (deleted from its page): its place goes too.
        db.session.delete(entry)
        db.session.commit()
        entry = None
    if entry is None or deployment is None:
        db.session.rollback()
        raise NotWaiting(_("This request no longer waits in line: it has started, or left it."))
    return entry


def out_of_line(entry: LineEntry, status: str, **event) -> Deployment:
    deployment = entry.deployment
    record_event(deployment, status, **event)
    deployment.status_reason = event.get("reason")
    db.session.delete(entry)
    return deployment


def leave(actor: User, deployment: Deployment) -> Deployment:
    """Take ``deployment`` out of the line at its owner's (or an admin's) request: nothing is
    launched and the row leaves the list; commits. Raises NotWaiting."""
    entry = held_entry(deployment.id)
    left = out_of_line(
        entry,
        Status.NOT_LAUNCHED,
        source=actor_source(actor, entry.deployment),
        actor=actor,
        reason=wording.LEFT,
        kind=wording.LEFT_KIND,
    )
    left.deleted, left.deleted_at = True, utcnow()
    db.session.commit()
    return left


def remove(operator: User, deployment: Deployment, reason: str) -> Deployment:
    """An operator takes ``deployment`` out of the line, saying why (the owner is told);
    commits. Raises NotWaiting, or PortalError without a reason."""
    reason = _reason(reason)
    entry = held_entry(deployment.id)
    removed = out_of_line(
        entry,
        Status.NOT_LAUNCHED,
        source="admin",
        actor=operator,
        reason=wording.REMOVED,
        kind=wording.REMOVED_KIND,
        details={"reason": reason},
    )
    db.session.commit()
    return removed


def move(operator: User, deployment: Deployment, place: int, reason: str) -> int:
    """An operator moves ``deployment`` to ``place`` (1 = first) in its line, saying why (the
    owner is told); commits and returns the place it has now. Raises NotWaiting, or
    PortalError for a reason or place missing."""
    reason = _reason(reason)
    if not isinstance(place, int) or place < 1:
        raise PortalError(_("Give the new place as a whole number, 1 for the first."), "place")
    entry = held_entry(deployment.id)
    others = [
        key
        for key, entry_id in db.session.execute(
            select(lines.sort_clause(), LineEntry.deployment_id)
            .where(LineEntry.line == entry.line, LineEntry.deployment_id != entry.deployment_id)
            .order_by(lines.sort_clause(), LineEntry.deployment_id)
        )
    ]
    place = min(place, len(others) + 1)
    if not others:
        entry.placed_at = entry.placed_at or entry.fair_at
    elif place == 1:
        entry.placed_at = others[0] - timedelta(seconds=1)
    elif place > len(others):
        entry.placed_at = others[-1] + timedelta(seconds=1)
    else:
        before, after = others[place - 2], others[place - 1]
        entry.placed_at = before + (after - before) / 2
    record_event(
        entry.deployment,
        None,
        source="admin",
        actor=operator,
        kind=wording.MOVED_KIND,
        details={"reason": reason, "to": place},
    )
    db.session.commit()
    return place


def _reason(reason: str | None) -> str:
    reason = " ".join(str(reason or "").split())
    if not reason:
        raise PortalError(_("Say why: the owner of the request is told."), "reason")
    return reason[:500]
