"""The sites the capacity emulators describe, their faults, and the lag with which their
numbers reach what they serve.

One ``World`` holds every emulated site (what it has in all and what is used, GPUs per model
as the devices name them) and is shared by the three emulated sources. A change made with
``change`` becomes visible only ``lag_seconds`` later, as a registry's feeder or a cluster's
statistics thread would show it; time is the portal's clock (``app.clock``), so a test moves
it with ``use_clock`` or CLOCK_OFFSET_FILE instead of waiting.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.clock import utcnow
from app.extension_points import StateKey

# Where the emulators' app keeps the one World its answers describe.
WORLD = StateKey("capacity world")


@dataclass
class EmulatedSite:
    """One site: totals and what is used. ``gpus`` maps a device model name (as the driver
    reports it) to ``[total, used]``."""

    name: str
    region: str = "default"
    cloud_id: str = ""
    cores: tuple[int, int] = (0, 0)
    ram_gib: tuple[float, float] = (0, 0)
    disk_gib: tuple[float, float] = (0, 0)
    instances: tuple[int, int] = (0, 0)
    gpus: dict[str, tuple[int, int]] = field(default_factory=dict)
    maintenance: bool = False


@dataclass
class Faults:
    """What the emulated sources do wrong. ``hang_seconds``: every answer is held this long
    (past the client's timeout: a timeout), unless ``release`` is set first; ``refuse``:
    every call gets 401 (True), or the calls to the sources named in a set;
    ``stalled_since``: the cluster statistics stopped being computed then (after an hour
    PAPI answers 500); ``clouds``: the faults of one IM cloud id alone, "hang" (held as
    ``hang_seconds`` holds, 30 seconds when that is 0) or an HTTP status to answer."""

    hang_seconds: float = 0.0
    refuse: bool | set[str] = False
    stalled_since: datetime | None = None
    clouds: dict[str, str | int] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)


class World:
    """Sites as they are, as they are seen (``lag_seconds`` late), and the faults."""

    def __init__(self, sites: list[EmulatedSite], lag_seconds: float = 0.0):
        self._lock = threading.Lock()
        self.lag_seconds = lag_seconds
        self.faults = Faults()
        # (when it became true, the sites then), oldest first
        self._history: list[tuple[datetime, dict[str, EmulatedSite]]] = [
            (datetime.min, {site.name: site for site in sites})
        ]
        self.calls: list[str] = []

    def change(self, name: str, **values) -> None:
        """From now on, site ``name`` has ``values`` (seen ``lag_seconds`` later)."""
        with self._lock:
            sites = copy.deepcopy(self._history[-1][1])
            for key, value in values.items():
                setattr(sites[name], key, value)
            self._history.append((utcnow(), sites))

    def seen(self) -> tuple[datetime, dict[str, EmulatedSite]]:
        """The sites as the sources show them now, and since when that view holds (the
        newest change older than the lag)."""
        horizon = utcnow() - timedelta(seconds=self.lag_seconds)
        with self._lock:
            for at, sites in reversed(self._history):
                if at <= horizon:
                    return at, copy.deepcopy(sites)
            at, sites = self._history[0]
            return at, copy.deepcopy(sites)

    def site_by_cloud(self, cloud_id: str) -> EmulatedSite | None:
        return next((s for s in self.seen()[1].values() if s.cloud_id == cloud_id), None)
