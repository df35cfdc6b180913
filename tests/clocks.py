"""A clock a test sets and moves by hand (``app.clock.set_clock``): time passes in tests by
moving it, never by sleeping."""

from __future__ import annotations

from datetime import datetime, timedelta


class Clock:
    """Always ``at``, until a test sets it or moves it (``move(hours=2)``)."""

    def __init__(self, at: datetime):
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def move(self, **by) -> None:
        self.at += timedelta(**by)
