"""Keeping deployments current without anyone waiting: the sync duty's pass.

A pass first lists the identities whose listing is due (``listing``), which also refreshes
every listed deployment, then polls the in-progress deployments still due (``polling``). So a
pass asks about each deployment at most once, plus the list pages. Several workers, on one
host or several sharing PostgreSQL, split the work through row claims (``app.claims``). The
worker runs the pass every DEPLOYMENTS_SYNC_TICK_SECONDS (``app.worker``); past its budget (the
claims' own DEPLOYMENTS_SYNC_LEASE_SECONDS) it takes no further turn of polls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app

from app.clock import utcnow
from app.instruments import SYNC_PASS_DURATION
from app.sync.listing import ListResult, claim_listings, list_identity
from app.sync.polling import PollResult, poll_due
from app.worker import out_of_time


@dataclass
class PassResult:
    """What one pass did, for logs and the command line."""

    listings: int = 0
    listed: ListResult = field(default_factory=ListResult)
    polled: PollResult = field(default_factory=PollResult)

    @property
    def acted(self) -> bool:
        return bool(self.listings or self.polled.checked)

    def __str__(self) -> str:
        return self.summary()

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
        if polled.checked < turn or out_of_time():
            return result


def claim_size() -> int:
    """How many rows a worker claims per turn: as many as it asks about at once.

    Claiming a whole batch would let the first worker to wake take every due row and leave
    the others idle until its leases end; a claim that fills the pool once means workers take
    turns, each claiming again as soon as its calls are answered.
    """
    config = current_app.config
    return max(min(config["DEPLOYMENTS_SYNC_BATCH"], config["DEPLOYMENTS_SYNC_CONCURRENCY"]), 1)
