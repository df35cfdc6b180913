"""A deployment's lease as the API shows it: the figures of the leases feature's summary (the
same offer and refusal the page's Extend button shows), written for scripts."""

from __future__ import annotations

from app.leases.clock_text import iso
from app.leases.presenters import LeaseSummary


def lease_body(lease: LeaseSummary) -> dict:
    return {
        "state": lease.state,
        "ends_at": iso(lease.ends_at),
        "delete_at": iso(lease.delete_at),
        "duration_minutes": lease.minutes,
        "can_extend": lease.extend.allowed,
        "extend_refusal": None if lease.extend.allowed else lease.extend.refusal,
        "extends_to": iso(lease.extend.new_end),
        "extends_used": lease.extends_used,
        "extends_left": lease.extends_left,
        "cap_minutes": lease.cap_minutes,
        "cap_ends_at": iso(lease.cap_end),
    }
