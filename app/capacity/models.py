"""The sites the portal knows and the last free numbers read for each."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.clock import utcnow
from app.extensions import db


class Site(db.Model):
    """A place deployments go: its name as people see it, the backend that reaches it, and
    what that backend needs to send a deployment there (``placement``, as the backend's own
    words say: ``Words.placement``)."""

    __tablename__ = "capacity_site"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    backend: Mapped[str] = mapped_column(String(20))
    placement: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    snapshot: Mapped[CapacitySnapshot | None] = relationship(
        back_populates="site", cascade="all, delete-orphan", uselist=False
    )


class CapacitySnapshot(db.Model):
    """What one site had free when a source last told it (one row per site, replaced by
    each successful read; a failed read keeps the numbers and records ``problem``)."""

    __tablename__ = "capacity_snapshot"

    id: Mapped[int] = mapped_column(primary_key=True)
    site_id: Mapped[int] = mapped_column(
        ForeignKey("capacity_site.id", ondelete="CASCADE"), unique=True
    )
    source: Mapped[str] = mapped_column(String(20))
    # Which configured source wrote it (``SourceSettings.key``): its failures mark this row.
    source_key: Mapped[str] = mapped_column(String(64), default="", index=True)
    read_at: Mapped[datetime] = mapped_column(default=utcnow)
    maintenance: Mapped[bool] = mapped_column(default=False)
    cores: Mapped[int | None] = mapped_column(nullable=True)
    memory_gib: Mapped[float | None] = mapped_column(nullable=True)
    disk_gib: Mapped[float | None] = mapped_column(nullable=True)
    instances: Mapped[int | None] = mapped_column(nullable=True)
    gpus: Mapped[dict] = mapped_column(JSON, default=dict)
    gpus_known: Mapped[bool] = mapped_column(default=False)
    # What each node had free ([{cores, memory_gib, disk_gib, gpus}]) when the source tells it
    # per node (cluster statistics); None when it tells sums only.
    nodes: Mapped[list | None] = mapped_column(JSON, nullable=True)
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)
    problem_at: Mapped[datetime | None] = mapped_column(nullable=True)

    site: Mapped[Site] = relationship(back_populates="snapshot")


class CapacityRead(db.Model):
    """When each configured source was last read and is next due: the row a worker claims,
    so that hosts sharing the database read each source once per period."""

    __tablename__ = "capacity_read"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    next_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(nullable=True)
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)
