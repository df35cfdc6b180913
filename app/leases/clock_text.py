"""Lease times as the pages and the timeline write them: ISO 8601 in UTC for machines and
``<time datetime>``, ``Thu 27 Nov 14:00 UTC`` for people (the page's script turns that into
the reader's own time zone)."""

from __future__ import annotations

from datetime import datetime


def iso(moment: datetime | None) -> str | None:
    """``2026-11-27T14:00:00Z`` (naive datetimes are UTC, the database's convention)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def from_iso(text: str | None) -> datetime | None:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ") if text else None


def shown(moment: datetime | None) -> str:
    """``Thu 27 Nov 14:00 UTC``: the text shown until the browser's time zone is known."""
    return f"{moment:%a} {moment.day} {moment:%b %H:%M} UTC" if moment else ""
