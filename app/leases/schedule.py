"""When a running lease next needs the expiry pass: its next warning, or its end."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.leases.models import Lease
from app.leases.policy import Policy


def due_warning(lease: Lease, policy: Policy, now: datetime) -> int | None:
    """The warning to give now (minutes before the end), if one is due: the closest to the end
    among those due and not yet given, so a late pass gives one warning, not a burst."""
    due = [
        before
        for before in policy.warnings
        if lease.ends_at - timedelta(minutes=before) <= now
        and (lease.warned_before is None or before < lease.warned_before)
    ]
    return min(due) if due else None


def next_step(lease: Lease, policy: Policy, now: datetime) -> datetime:
    """When the pass should next look at ``lease``: its next warning not given yet, or its end."""
    times = [
        lease.ends_at - timedelta(minutes=before)
        for before in policy.warnings
        if (lease.warned_before is None or before < lease.warned_before)
        and lease.ends_at - timedelta(minutes=before) > now
    ]
    return min([*times, lease.ends_at])
