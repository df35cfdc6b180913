"""Lease times as the pages and the timeline write them: ISO 8601 in UTC for machines and
``<time datetime>``; for people, as every other time of the portal (``app.formatting.when``:
their language and time zone, the zone named)."""

from __future__ import annotations

from datetime import datetime

from app.formatting import MACHINE_TIME, machine_time, when


def iso(moment: datetime | None) -> str | None:
    """``2026-11-27T14:00:00Z`` (``app.formatting.machine_time``, the owner of that form)."""
    return machine_time(moment)


def from_iso(text: str | None) -> datetime | None:
    return datetime.strptime(text, MACHINE_TIME) if text else None


def shown(moment: datetime | None) -> str:
    """``Nov 27, 2026, 15:00 CET``: in the reader's language and zone, as the rest of the page."""
    return when(moment)


def recorded(moment: datetime | None) -> str:
    """``Thu 27 Nov 14:00 UTC`` always in English: for the reason kept with a timeline entry
    (scripts read it; pages word the entry anew from its details)."""
    return f"{moment:%a} {moment.day} {moment:%b %H:%M} UTC" if moment else ""
