"""Keeping deployments current without anyone waiting: the sync worker's passes.

A pass first lists the identities whose listing is due (``listing``), which also refreshes
every listed deployment, then polls the in-progress deployments still due (``polling``). So a
pass asks about each deployment at most once, plus the list pages. Several workers, on one
host or several sharing PostgreSQL, split the work through row claims.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from flask import current_app

from app.clock import utcnow
from app.extensions import db
from app.instruments import SYNC_PASS_DURATION
from app.sync.listing import ListResult, claim_listings, list_identity
from app.sync.polling import PollResult, poll_due

log = logging.getLogger(__name__)


@dataclass
class PassResult:
    """What one pass did, for logs and the command line."""

    listings: int = 0
    listed: ListResult = field(default_factory=ListResult)
    polled: PollResult = field(default_factory=PollResult)

    def summary(self) -> str:
        listed, polled = self.listed, self.polled
        return (
            f"listed {self.listings} identities ({listed.listed} deployments: "
            f"{listed.adopted} adopted, {listed.confirmed} confirmed, "
            f"{listed.not_launched} not launched, {listed.vanished} vanished); "
            f"checked {polled.checked} ({polled.changed} changed, {polled.failed} failed)"
        )


def sync_once() -> PassResult:
    """One pass: due listings, then due polls (in batches until none is due). Its duration
    is measured, failed passes included."""
    with SYNC_PASS_DURATION.time():
        return _pass()


def _pass() -> PassResult:
    result = PassResult()
    # Rows checked during this pass (by a listing) come due again only after it started.
    started = utcnow()
    for key in claim_listings():
        found = list_identity(key)
        result.listings += 1
        for name in ("listed", "adopted", "confirmed", "not_launched", "vanished"):
            setattr(result.listed, name, getattr(result.listed, name) + getattr(found, name))
    turn = claim_size()
    while True:
        polled = poll_due(limit=turn, due_by=started)
        result.polled.checked += polled.checked
        result.polled.changed += polled.changed
        result.polled.failed += polled.failed
        if polled.checked < turn:
            return result


def register_pass(app, name: str, run: Callable[[], object]) -> None:
    """Have the sync worker run ``run`` after each of its passes: other features' periodic
    work (the end of leases), registered at start-up so that this module need not know them.
    ``run`` commits its own work and returns something whose ``str`` the log may show."""
    app.extensions.setdefault("deployments.passes", {})[name] = run


def other_passes() -> dict[str, object]:
    """Run the registered passes, each on its own (one failing does not stop the others)."""
    outcomes = {}
    for name, run in current_app.extensions.get("deployments.passes", {}).items():
        try:
            outcomes[name] = run()
        except Exception:  # keep the worker alive; the next pass retries
            log.exception("The %s pass failed", name)
            db.session.rollback()
    return outcomes


def claim_size() -> int:
    """How many rows a worker claims per turn: as many as it asks about at once.

    Claiming a whole batch would let the first worker to wake take every due row and leave
    the others idle until its leases end; a claim that fills the pool once means workers take
    turns, each claiming again as soon as its calls are answered.
    """
    config = current_app.config
    return max(min(config["DEPLOYMENTS_SYNC_BATCH"], config["DEPLOYMENTS_SYNC_CONCURRENCY"]), 1)


def sync_loop(stop: threading.Event | None = None) -> None:
    """Run passes until SIGTERM or SIGINT (or ``stop`` is set); a pass under way finishes."""
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    tick = current_app.config["DEPLOYMENTS_SYNC_TICK_SECONDS"]
    log.info("Deployment sync worker started")
    while not stop.is_set():
        started = time.monotonic()
        try:
            result = sync_once()
        except Exception:  # keep the worker alive; the next pass retries
            log.exception("Deployment sync pass failed")
            db.session.rollback()
        else:
            if result.listings or result.polled.checked:
                log.info("Sync pass: %s", result.summary())
        for name, outcome in other_passes().items():
            if getattr(outcome, "acted", True):
                log.info("%s pass: %s", name.capitalize(), outcome)
        stop.wait(max(tick - (time.monotonic() - started), 0.1))
    log.info("Deployment sync worker stopped")
