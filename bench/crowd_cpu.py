"""Where the crowd's CPU goes: each part of the set-up's CPU time over the measured window.

The crowd runs on one machine, so its own researchers (locust), the orchestrator emulator and
PostgreSQL share the cores with the portal. A latency target missed says nothing of which part
ran out; this samples each part's process CPU (children included: gunicorn's workers) twice a
second, and reports for the window each part's CPU per answered request and the cores it kept
busy. PostgreSQL's part is its backends serving the benchmark's own database (a backend's
process title names its database), so other work on the server does not count.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left

import psutil


def _cpu_seconds(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0.0
    return times.user + times.system


def _tree_seconds(pid: int) -> float:
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    return sum(_cpu_seconds(process) for process in family)


class CpuSampler:
    """Samples the CPU seconds of named process trees and of one database's backends.

    A backend that exits takes its seconds with it, so each backend's highest reading is kept:
    the portal's pools keep their connections, and the few that close lose little."""

    def __init__(self, database: str, interval: float = 0.5):
        self.database = database
        self.interval = interval
        self.parts: dict[str, int] = {}  # name -> pid of the tree's root
        self.samples: list[tuple[float, dict[str, float]]] = []
        self._backends: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def watch(self, name: str, pid: int) -> None:
        self.parts[name] = pid

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _postgres_seconds(self) -> float:
        marker = f" {self.database} "
        for process in psutil.process_iter(["name", "cmdline"]):
            try:
                title = " ".join(process.info["cmdline"] or ()) + " "
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if title.startswith("postgres:") and marker in title:
                seconds = _cpu_seconds(process)
                self._backends[process.pid] = max(self._backends.get(process.pid, 0.0), seconds)
        return sum(self._backends.values())

    def _sample(self) -> None:
        reading = {name: _tree_seconds(pid) for name, pid in list(self.parts.items())}
        reading["postgres"] = self._postgres_seconds()
        cores = psutil.cpu_times()
        reading["machine"] = cores.user + cores.system + getattr(cores, "nice", 0.0)
        self.samples.append((time.time(), reading))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def _at(self, moment: float) -> dict[str, float]:
        """The sample nearest ``moment``."""
        times = [when for when, _reading in self.samples]
        index = min(bisect_left(times, moment), len(times) - 1)
        if index and abs(times[index - 1] - moment) < abs(times[index] - moment):
            index -= 1
        return self.samples[index][1]

    def window(self, start: float, end: float, requests: int) -> dict[str, dict[str, float]]:
        """Each part's CPU over [start, end]: ms per answered request and cores kept busy."""
        first, last = self._at(start), self._at(end)
        seconds = max(end - start, 1e-9)
        return {
            name: {
                "ms_per_request": (last[name] - first.get(name, 0.0)) * 1000 / max(requests, 1),
                "cores": (last[name] - first.get(name, 0.0)) / seconds,
            }
            for name in last
        }


def report(parts: dict[str, dict[str, float]]) -> None:
    print("  CPU in the window, by part (per answered request; cores kept busy):")
    for name, figures in sorted(parts.items(), key=lambda item: -item[1]["cores"]):
        print(f"    {name:12} {figures['ms_per_request']:6.1f} ms  {figures['cores']:4.2f} cores")
