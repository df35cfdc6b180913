"""The portal's one clock: naive UTC datetimes, as the database stores them.

Everything that asks what time it is asks ``utcnow()``, so that tests can make time pass by
installing another clock (``use_clock``) instead of sleeping for hours.

A clock installed with ``use_clock`` lives in one process. Several processes (portal hosts,
sync workers) share a moved clock through ``OffsetFileClock``: system time plus a number of
seconds read from a file that every process names. The setting CLOCK_OFFSET_FILE installs it
when the app is built (``install_configured_clock``), so a test or a demo moves time for every
process at once by writing one file (``OffsetFileClock(path).move(...)``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

_clock: Callable[[], datetime] | None = None


def utcnow() -> datetime:
    """The current time in UTC, without a time zone (the database's convention)."""
    now = _clock() if _clock is not None else datetime.now(UTC)
    return now.astimezone(UTC).replace(tzinfo=None) if now.tzinfo else now


def set_clock(clock: Callable[[], datetime] | None) -> None:
    """Install ``clock`` for this process (None: the system clock again)."""
    global _clock
    _clock = clock


def installed_clock() -> Callable[[], datetime] | None:
    """The clock installed for this process (None: the system clock)."""
    return _clock


@contextmanager
def use_clock(clock: Callable[[], datetime]) -> Iterator[None]:
    """Install ``clock`` for the duration of a ``with`` block."""
    previous = _clock
    set_clock(clock)
    try:
        yield
    finally:
        set_clock(previous)


class OffsetFileClock:
    """System time moved by the seconds written in ``path`` (a missing file: not moved).

    The file is read again only when it changes (one ``stat`` per reading of the time), and
    written whole through a rename, so a reader never sees half a number.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._seen: tuple[int, int] | None = None
        self._offset = timedelta(0)

    def offset(self) -> timedelta:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._offset = None, timedelta(0)
            return self._offset
        signature = (stat.st_mtime_ns, stat.st_size)
        if signature != self._seen:
            text = self.path.read_text().strip()
            self._offset = timedelta(seconds=float(text or 0))
            self._seen = signature
        return self._offset

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset()

    def set_offset(self, offset: timedelta) -> None:
        """Move every process reading ``path`` to system time plus ``offset``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".clock-")
        with os.fdopen(handle, "w") as file:
            file.write(f"{offset.total_seconds()}\n")
        os.replace(temporary, self.path)
        # A rewrite within the file system's timestamp resolution must still be seen.
        self._seen = None

    def move(self, by: timedelta) -> None:
        """Move the shared time on by ``by`` (from wherever it stands now)."""
        self.set_offset(self.offset() + by)


def install_configured_clock(config) -> None:
    """Install the shared clock the setting CLOCK_OFFSET_FILE names (nothing when empty)."""
    path = config.get("CLOCK_OFFSET_FILE")
    if path:
        set_clock(OffsetFileClock(path))
