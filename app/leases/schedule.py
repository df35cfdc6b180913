"""When a running lease next needs the expiry pass: its next warning, or its end."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.leases.models import Lease
from app.leases.policy import Policy


def warnings_for(lease: Lease, policy: Policy) -> list[int]:
    """The policy's warnings (minutes before the end, largest first) that fall after the current
    end was set. One whose moment had already passed then, a 24-hour warning on an 8-hour lease
    or after a one-hour extend, is never given and never turns the countdown amber: the person
    has just chosen that end."""
    since = lease.end_set_at or lease.started_at
    if since is None or lease.ends_at is None:
        return policy.warnings
    return [b for b in policy.warnings if lease.ends_at - timedelta(minutes=b) > since]


def first_warning_at(lease: Lease, policy: Policy) -> datetime | None:
    """When the countdown turns amber: the first warning that applies, if any."""
    warnings = warnings_for(lease, policy)
    return lease.ends_at - timedelta(minutes=warnings[0]) if warnings else None


def due_warning(lease: Lease, policy: Policy, now: datetime) -> int | None:
    """The warning to give now (minutes before the end), if one is due: the closest to the end
    among those due and not yet given, so a late pass gives one warning, not a burst."""
    due = [
        before
        for before in warnings_for(lease, policy)
        if lease.ends_at - timedelta(minutes=before) <= now
        and (lease.warned_before is None or before < lease.warned_before)
    ]
    return min(due) if due else None


def next_step(lease: Lease, policy: Policy, now: datetime) -> datetime:
    """When the pass should next look at ``lease``: its next warning not given yet, or its end."""
    times = [
        lease.ends_at - timedelta(minutes=before)
        for before in warnings_for(lease, policy)
        if (lease.warned_before is None or before < lease.warned_before)
        and lease.ends_at - timedelta(minutes=before) > now
    ]
    return min([*times, lease.ends_at])
