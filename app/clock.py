"""The portal's one clock: naive UTC datetimes, as the database stores them.

Everything that asks what time it is asks ``utcnow()``, so that tests can make time pass by
installing another clock (``use_clock``) instead of sleeping for hours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_clock: Callable[[], datetime] | None = None


def utcnow() -> datetime:
    """The current time in UTC, without a time zone (the database's convention)."""
    now = _clock() if _clock is not None else datetime.now(UTC)
    return now.astimezone(UTC).replace(tzinfo=None) if now.tzinfo else now


def set_clock(clock: Callable[[], datetime] | None) -> None:
    """Install ``clock`` for this process (None: the system clock again)."""
    global _clock
    _clock = clock


@contextmanager
def use_clock(clock: Callable[[], datetime]) -> Iterator[None]:
    """Install ``clock`` for the duration of a ``with`` block."""
    previous = _clock
    set_clock(clock)
    try:
        yield
    finally:
        set_clock(previous)
