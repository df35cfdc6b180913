"""Lease times as the pages and the timeline write them: ISO 8601 in UTC for machines and
``<time datetime>``, ``Thu 27 Nov 14:00 UTC`` for people, in their language (``gio 27 nov
14:00 UTC``; the page's script turns that into the reader's own time zone)."""

from __future__ import annotations

from datetime import UTC, datetime

from babel.dates import format_datetime
from flask_babel import get_locale

from app.formatting import MACHINE_TIME, machine_time


def iso(moment: datetime | None) -> str | None:
    """``2026-11-27T14:00:00Z`` (``app.formatting.machine_time``, the owner of that form)."""
    return machine_time(moment)


def from_iso(text: str | None) -> datetime | None:
    return datetime.strptime(text, MACHINE_TIME) if text else None


def shown(moment: datetime | None) -> str:
    """``Thu 27 Nov 14:00 UTC``: the text shown until the browser's time zone is known."""
    if not moment:
        return ""
    text = format_datetime(moment, "EEE d MMM HH:mm", tzinfo=UTC, locale=get_locale() or "en")
    return f"{text} UTC"


def recorded(moment: datetime | None) -> str:
    """``Thu 27 Nov 14:00 UTC`` always in English: for the reason kept with a timeline entry
    (scripts read it; pages word the entry anew from its details)."""
    return f"{moment:%a} {moment.day} {moment:%b %H:%M} UTC" if moment else ""
