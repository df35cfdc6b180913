"""What people launched, as the portal remembers it between visits to the orchestrator."""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.auth.models import User, utcnow
from app.extensions import db
from app.orchestrator.schemas import still_changing


class Deployment(db.Model):
    """One launch of a catalogue template by one user.

    ``parameters`` holds the inputs as sent, minus secrets (passwords, credentials): the
    orchestrator keeps those, the portal need not. ``outputs`` are the orchestrator's, as last
    seen. A deleted deployment keeps its row (with ``deleted`` set) for the record.
    """

    __tablename__ = "deployments"
    __table_args__ = (Index("ix_deployments_user_deleted", "user_id", "deleted"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    template_slug: Mapped[str] = mapped_column(String(100))
    # The revision launched; kept even if the catalogue later drops it (no foreign key).
    revision_id: Mapped[int | None] = mapped_column(nullable=True)
    template_name: Mapped[str] = mapped_column(String(255), default="")
    parameters: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(40))
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    task: Mapped[str | None] = mapped_column(String(40), nullable=True)
    site: Mapped[str | None] = mapped_column(String(255), nullable=True)
    outputs: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # When the orchestrator was last asked; limits how often polling pages ask again.
    checked_at: Mapped[datetime | None] = mapped_column(nullable=True)
    deleted: Mapped[bool] = mapped_column(default=False)

    user: Mapped[User] = relationship()

    @property
    def in_progress(self) -> bool:
        """Whether the status may still change without the user doing anything."""
        return not self.deleted and still_changing(self.status)

    @property
    def name(self) -> str:
        return self.template_name or self.template_slug

    def __repr__(self) -> str:
        return f"<Deployment {self.uuid} {self.status}>"
