"""What each site had free, as the portal last read it: the one shape the rest of the house
reads (the launch form's verdict, the API's dry run, the capacity page, /metrics).

A snapshot never calls a source: the refresh pass (``refresh``) writes, everyone else reads.
Its age is measured on the portal's clock, so a moved ``CLOCK_OFFSET_FILE`` ages it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from flask import current_app
from sqlalchemy import select

from app.caches import remembered
from app.clock import utcnow
from app.extensions import db


@dataclass(frozen=True)
class NodeFree:
    """What one node of a cluster had free: a machine or container of a request runs on one
    node, so a cluster's room is judged node by node (``app.capacity.placement``)."""

    cores: int = 0
    memory_gib: float = 0.0
    disk_gib: float = 0.0
    # Free GPUs per model as quotas and templates name them; "" for an unknown model.
    gpus: Mapping[str, int] = field(default_factory=dict)

    def as_data(self) -> dict:
        """The node as stored (``CapacitySnapshot.nodes``)."""
        return {
            "cores": self.cores,
            "memory_gib": self.memory_gib,
            "disk_gib": self.disk_gib,
            "gpus": dict(self.gpus),
        }

    @classmethod
    def from_data(cls, data: Mapping) -> NodeFree:
        return cls(
            cores=int(data.get("cores") or 0),
            memory_gib=float(data.get("memory_gib") or 0.0),
            disk_gib=float(data.get("disk_gib") or 0.0),
            gpus={str(model): int(n) for model, n in (data.get("gpus") or {}).items()},
        )


@dataclass(frozen=True)
class SiteFree:
    """What one site had free when its source was last read."""

    site: str  # the portal's name of the site (Site.name)
    source: str  # the kind of source that told it (``app.capacity.sources.KINDS``)
    read_at: datetime  # when the numbers were read, naive UTC on the portal's clock
    maintenance: bool  # the source says the site is in maintenance / not usable now
    cores: int | None  # free cores; None = this source does not tell
    memory_gib: float | None
    disk_gib: float | None
    instances: int | None
    # Free GPUs per model as quotas and templates name them ("A100", "T4"); {} = none known
    # free; a key "" for GPUs whose model is unknown.
    gpus: Mapping[str, int] = field(default_factory=dict)
    gpus_known: bool = False  # False when the source says nothing about GPUs
    problem: str | None = None  # the last refresh's failure in words; data kept from before
    # What each node had free, when the site is a cluster of nodes (cluster statistics): such
    # a site has no quota of machines. None: the source tells sums only (quotas).
    nodes: tuple[NodeFree, ...] | None = None


def current() -> list[SiteFree]:
    """Every known site's latest snapshot, read from the database (never calls a source).
    A site no source has told about yet has none, and is left out. One query, asked once
    inside ``app.caches.remembering`` (the launch box asks it for the room check and for
    the sites it offers)."""
    return remembered("capacity.current", None, _read)


def _read() -> list[SiteFree]:
    found = db.session.execute(_latest_statement())
    return [
        SiteFree(
            *row[:8],
            gpus=dict(row.gpus or {}),
            gpus_known=row[9],
            problem=row[10],
            nodes=None if row[11] is None else tuple(NodeFree.from_data(n) for n in row[11]),
        )
        for row in found
    ]


@cache
def _latest_statement():
    """Built once: building it cost more than running it, at every launch box."""
    from app.capacity.models import CapacitySnapshot as Row
    from app.capacity.models import Site

    return (
        select(
            Site.name,
            Row.source,
            Row.read_at,
            Row.maintenance,
            Row.cores,
            Row.memory_gib,
            Row.disk_gib,
            Row.instances,
            Row.gpus,
            Row.gpus_known,
            Row.problem,
            Row.nodes,
        )
        .join(Row, Row.site_id == Site.id)
        .order_by(Site.name)
    )


def age_seconds(free: SiteFree, now: datetime | None = None) -> float:
    """How old ``free``'s numbers are, in seconds on the portal's clock (never negative)."""
    return max(((now or utcnow()) - free.read_at).total_seconds(), 0.0)


def is_stale(free: SiteFree, now: datetime | None = None) -> bool:
    """Whether ``free`` is older than CAPACITY_STALE_MINUTES: then a verdict may weaken to
    "may not fit", never refuse."""
    return age_seconds(free, now) > current_app.config["CAPACITY_STALE_MINUTES"] * 60
