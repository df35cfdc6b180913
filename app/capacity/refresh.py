"""The refresh pass: the worker's capacity duty reads each capacity source that is due and
stores what each site had free, with the time it was read.

A source is due CAPACITY_REFRESH_SECONDS after its last read, failed or not. When several
sources tell about one site, the one listed first in CAPACITY_SOURCES is kept: a later one
replaces its numbers only once they are stale (CAPACITY_STALE_MINUTES), so a site keeps the
best source that is working. Hosts and
workers sharing the database claim a due source's ``capacity_read`` row as every duty claims
its rows (``app.claims``), moving its next time on, committed before the source is called:
the one that claimed it reads it; the others find it no longer due. A failed read
keeps every site's numbers from before and marks them with the failure in words. A source
that asks each site apart may fail for one site only (a reading with a ``problem``): that
site keeps its numbers from before, marked with its failure, while the sites that answered
are stored; when every site failed, the read counts as failed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app import claims
from app.capacity.models import CapacityRead, CapacitySnapshot, Site
from app.capacity.sources import configured, source_for
from app.capacity.sources.base import SiteReading, SourceFailure, SourceSettings
from app.clock import utcnow
from app.extensions import db
from app.locks import lock_rows
from app.worker import out_of_time

log = logging.getLogger(__name__)


@dataclass
class RefreshResult:
    """What one pass did, for the worker's log and the command line."""

    read: int = 0
    failed: list[str] = field(default_factory=list)
    sites: int = 0
    unknown: list[str] = field(default_factory=list)
    # Sites a source could not read while it read others (or none: then it is in ``failed``).
    unread: list[str] = field(default_factory=list)
    # Each failed source in words: its kind, its address and why.
    failures: list[str] = field(default_factory=list)

    @property
    def all_failed(self) -> bool:
        """Whether every source read in this pass failed (and at least one was read)."""
        return bool(self.read) and len(self.failed) >= self.read

    @property
    def acted(self) -> bool:
        return bool(self.read or self.failed)

    def __str__(self) -> str:
        text = f"read {self.read} sources ({len(self.failed)} failed), {self.sites} sites updated"
        if self.unread:
            text += f"; not read: {', '.join(sorted(set(self.unread)))}"
        if self.unknown:
            text += f"; not known here: {', '.join(sorted(set(self.unknown)))}"
        return text


def refresh_due(*, everything: bool = False) -> RefreshResult:
    """Read every source that is due (``everything``: every source, due or not) and store
    what it said. Commits after each source."""
    result = RefreshResult()
    every = configured(current_app.config.get("CAPACITY_SOURCES"))
    rank = {settings.key: index for index, settings in enumerate(every)}
    for settings in every:
        if out_of_time():
            break  # the sources left stay due, for the next pass
        if not claim(settings.key, force=everything):
            continue
        try:
            readings = source_for(settings).read()
        except SourceFailure as failure:
            log.warning("Capacity source %s failed: %s", settings.kind, failure.message)
            _failed(result, settings, failure.message)
        except Exception:  # an answer no reader foresaw: shown as such, the pass goes on
            log.exception("Capacity source %s gave an answer that could not be read", settings.kind)
            db.session.rollback()
            _failed(result, settings, _("The source's answer could not be read."))
        else:
            try:
                stored, unknown = store(settings, readings, rank)
            except Exception:  # numbers the database would not take: shown, the pass goes on
                log.exception("Capacity source %s: its numbers could not be stored", settings.kind)
                db.session.rollback()
                _failed(result, settings, _("The source's numbers could not be stored."))
                result.read += 1
                continue
            result.sites += stored
            result.unknown.extend(unknown)
            unread = [reading for reading in readings if reading.problem]
            for reading in unread:
                log.warning("Capacity source %s failed: %s", settings.kind, reading.problem)
            result.unread.extend(reading.site for reading in unread)
            if wholly_failed(readings):
                result.failed.append(settings.kind)
                result.failures.append(
                    f"{settings.kind} {settings.url}: "
                    + " ".join(reading.problem or "" for reading in readings)
                )
        result.read += 1
    return result


def _failed(result: RefreshResult, settings: SourceSettings, message: str) -> None:
    record_failure(settings, message)
    result.failed.append(settings.kind)
    result.failures.append(f"{settings.kind} {settings.url}: {message}")


def claim(key: str, *, force: bool = False) -> bool:
    """Whether this worker won the read of source ``key`` now (its row moved to its next
    time and committed). Exactly one of several workers asking at once wins."""
    now = utcnow()
    next_at = now + timedelta(seconds=current_app.config["CAPACITY_REFRESH_SECONDS"])
    due = [] if force else [CapacityRead.next_at <= now]
    won = claims.claim_due(
        CapacityRead.key, CapacityRead.key == key, *due, take={"next_at": next_at}
    )
    if won:
        db.session.commit()
        return True
    if db.session.get(CapacityRead, key) is not None:
        db.session.rollback()
        return False
    # Never read: the first to insert its row wins.
    db.session.add(CapacityRead(key=key, next_at=next_at))
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return False
    return True


def _sites_by_name() -> dict[str, Site]:
    sites = db.session.scalars(select(Site)).all()
    found = {site.placement: site for site in sites if site.placement}
    found.update({site.name: site for site in sites})
    return found


def _site_for(reading: SiteReading, known: dict[str, Site]) -> Site | None:
    for name in (reading.site, *reading.aliases):
        if name in known:
            return known[name]
    folded = {name.casefold(): site for name, site in known.items()}
    for name in (reading.site, *reading.aliases):
        if name.casefold() in folded:
            return folded[name.casefold()]
    return None


def store(
    settings: SourceSettings, readings: list[SiteReading], rank: dict[str, int] | None = None
) -> tuple[int, list[str]]:
    """Replace the snapshots of the sites ``readings`` name, where this source is the best
    one working (``rank``: each source's place in CAPACITY_SOURCES); a reading with a
    ``problem`` keeps the numbers this source gave before, marked with it. Returns how many
    were stored and the names no known site answers to. Commits.

    Writers of one site's row are serialised (its row locked, or on SQLite the database), and
    a first row two writers would insert at once is inserted by one, updated by the other.
    """
    rank = rank or {settings.key: 0}
    now, stored, unknown = utcnow(), 0, []
    lock_rows(select(CapacitySnapshot))
    known = _sites_by_name()
    for reading in readings:
        site = _site_for(reading, known)
        if site is None:
            unknown.append(reading.site)
            continue
        row = db.session.scalar(select(CapacitySnapshot).where(CapacitySnapshot.site_id == site.id))
        if reading.problem:
            # Numbers another source gave are not this source's to mark.
            if row is not None and row.source_key == settings.key:
                row.problem, row.problem_at = reading.problem, now
            continue
        row = row or _first_row(site)
        if not _replaces(settings.key, row, rank, now):
            continue
        row.source, row.source_key, row.read_at = settings.kind, settings.key, now
        row.maintenance = reading.maintenance
        row.cores, row.memory_gib = reading.cores, reading.memory_gib
        row.disk_gib, row.instances = reading.disk_gib, reading.instances
        row.gpus, row.gpus_known = dict(reading.gpus), reading.gpus_known
        row.nodes = None if reading.nodes is None else [node.as_data() for node in reading.nodes]
        row.problem = row.problem_at = None
        stored += 1
    problems = " ".join(reading.problem for reading in readings if reading.problem)
    _mark_read(settings.key, None if wholly_failed(readings) else now, problems or None)
    db.session.commit()
    return stored, unknown


def wholly_failed(readings: list[SiteReading]) -> bool:
    """Whether every site of a read failed: then the read failed, as if it had raised."""
    return bool(readings) and all(reading.problem for reading in readings)


def _first_row(site: Site) -> CapacitySnapshot:
    """A new row for ``site``, or the one another writer inserted meanwhile."""
    try:
        with db.session.begin_nested():
            row = CapacitySnapshot(site_id=site.id, source="", source_key="", read_at=utcnow())
            db.session.add(row)
        return row
    except IntegrityError:
        return db.session.scalar(
            select(CapacitySnapshot).where(CapacitySnapshot.site_id == site.id)
        )


def _replaces(key: str, row: CapacitySnapshot, rank: dict[str, int], now: datetime) -> bool:
    """Whether a reading from source ``key`` replaces ``row``: a new row, one from the same
    source, from a source listed after it or no longer listed, or stale numbers."""
    if not row.source_key or row.source_key == key or row.source_key not in rank:
        return True
    if rank[row.source_key] > rank[key]:
        return True
    stale_after = timedelta(minutes=current_app.config["CAPACITY_STALE_MINUTES"])
    return now - row.read_at > stale_after


def record_failure(settings: SourceSettings, message: str) -> None:
    """Keep the numbers ``settings``' source gave before, marked with ``message``. Commits."""
    now = utcnow()
    rows = db.session.scalars(
        select(CapacitySnapshot).where(CapacitySnapshot.source_key == settings.key)
    ).all()
    for row in rows:
        row.problem, row.problem_at = message, now
    _mark_read(settings.key, None, message)
    db.session.commit()


def _mark_read(key: str, read_at: datetime | None, problem: str | None) -> None:
    row = db.session.get(CapacityRead, key)
    if row is None:
        return
    row.problem = problem
    if read_at is not None:
        row.read_at = read_at


def source_states() -> dict[str, CapacityRead]:
    """Each configured source's last read and problem, by key (for the capacity page)."""
    return {row.key: row for row in db.session.scalars(select(CapacityRead))}


@dataclass(frozen=True)
class SourceState:
    """One configured source as the capacity page and ``flask capacity show`` tell it: when
    it was last read usably (None: never) and its last failure, shown from its first read
    on, whether or not any site has numbers from it."""

    kind: str
    url: str
    site: str | None
    tried: bool
    read_at: datetime | None
    problem: str | None


def source_overview() -> list[SourceState]:
    """Every configured source, in the order of CAPACITY_SOURCES, with its state."""
    states = source_states()
    found = []
    for settings in configured(current_app.config.get("CAPACITY_SOURCES")):
        row = states.get(settings.key)
        found.append(
            SourceState(
                kind=settings.kind,
                url=settings.url,
                site=settings.options.get("site"),
                tried=row is not None,
                read_at=row.read_at if row is not None else None,
                problem=row.problem if row is not None else None,
            )
        )
    return found
