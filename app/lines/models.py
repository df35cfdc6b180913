"""A request waiting in line: its deployment row (status WAITING, charged nothing) and its
place, kept in ``line_entries`` while it waits and removed, in the same transaction, when it
leaves the line (admitted, left, dropped or removed)."""

from datetime import datetime

from sqlalchemy import JSON, Float, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db


class LineEntry(db.Model):
    """One waiting request's place in its line.

    ``line`` names the line (``lines.Line.key``: whose limit and which resource it waits for,
    e.g. ``group:gpu-users:gpus:A100``). ``enqueued_at`` is when it joined; ``fair_at`` the
    same moved back by the fair-share rule (``fairness``), measured when it joined; ``placed_at``
    an operator's move, which overrides both. ``inputs_sealed`` keeps every value it will be
    submitted with, typed secrets too (sealed), until it leaves the line.
    """

    __tablename__ = "line_entries"
    __table_args__ = (
        Index("ix_line_entries_line", "line", "fair_at"),
        Index("ix_line_entries_expires", "expires_at"),
    )

    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    line: Mapped[str] = mapped_column(String(400))
    enqueued_at: Mapped[datetime] = mapped_column(default=utcnow)
    fair_at: Mapped[datetime] = mapped_column(default=utcnow)
    placed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    expires_at: Mapped[datetime] = mapped_column()
    # GPU-hours its owner held in the fair-share window when it joined (shown to operators).
    recent_gpu_hours: Mapped[float] = mapped_column(Float, default=0.0)
    inputs_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)
    # What it was launched with beyond its inputs: generated secret names, lease minutes,
    # whether to remember the values.
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    # Why it waits, in English as recorded (the refusal it would have had).
    reason: Mapped[str] = mapped_column(Text, default="")

    deployment: Mapped[Deployment] = relationship()
