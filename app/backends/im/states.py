"""IM's words for where an infrastructure stands, in the portal's (``Phase``).

IM 2.0 combines its machines' states into the infrastructure's: ``pending`` and ``running``
(machines being made, or made and being configured), ``configured`` (done), ``unconfigured``
(made, but configuring them failed), ``failed``, ``stopped``/``off`` (machines stopped, by a
person or by the site), ``unknown`` (IM lost sight of a machine) and ``deleting``.

``stopped`` and ``off`` map to READY: the infrastructure still exists and holds its resources
(a site may stop machines on its own), and the portal offers no stop or start for IM
(``capabilities.stop_start`` is False); ``RemoteState.raw_state`` says which it is.

``unknown`` is retried before it is believed: IM reports it for a moment when a site is slow
to answer or when another IM server behind the same address has not loaded the infrastructure
yet (grycap/im#1479). Until it has been seen ``UNKNOWN_BELIEVED_AFTER_TIMES`` times in a row
over at least ``UNKNOWN_BELIEVED_AFTER_SECONDS``, the backend reports CREATING with a note in
``details``; both must hold, so a burst of quick polls cannot make a blip permanent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from app.backends.base import Phase

PHASES = {
    "pending": Phase.CREATING,
    "running": Phase.CREATING,
    "configured": Phase.READY,
    "unconfigured": Phase.FAILED,
    "failed": Phase.FAILED,
    "stopped": Phase.READY,
    "off": Phase.READY,
    "deleting": Phase.DELETING,
    "unknown": Phase.UNKNOWN,
}

UNKNOWN_BELIEVED_AFTER_TIMES = 3
UNKNOWN_BELIEVED_AFTER_SECONDS = 60.0


def phase_of(raw_state: str | None) -> Phase:
    """The portal's phase for IM's ``raw_state`` (UNKNOWN for a word IM 2.0 does not use)."""
    return PHASES.get((raw_state or "").strip().lower(), Phase.UNKNOWN)


class UnknownWatch:
    """Remembers, per infrastructure, since when and how often IM said ``unknown`` in a row,
    so that it is believed only once it persists. Shared by the backend objects of one process
    (the sync worker makes a new one per pass); safe across threads."""

    def __init__(
        self,
        times: int = UNKNOWN_BELIEVED_AFTER_TIMES,
        seconds: float = UNKNOWN_BELIEVED_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.times, self.seconds, self.clock = times, seconds, clock
        self._seen: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def believe(self, infid: str, raw_state: str | None) -> bool:
        """Record this answer; True when the phase may be reported as it is."""
        with self._lock:
            if phase_of(raw_state) is not Phase.UNKNOWN:
                self._seen.pop(infid, None)
                return True
            first, count = self._seen.get(infid, (self.clock(), 0))
            count += 1
            self._seen[infid] = (first, count)
            return count >= self.times and self.clock() - first >= self.seconds

    def forget(self, infid: str) -> None:
        with self._lock:
            self._seen.pop(infid, None)


WATCH = UnknownWatch()
