"""The outbox: one notification per event worth telling someone, and what they want by e-mail.

A notification is written in the same transaction as the timeline entry that causes it (see
``listener``), so that nothing happens without its notice and no notice outlives a rolled-back
event. It is shown in the portal at once; its e-mail, when one is due, is sent later by the
worker (``sending``), which records every attempt on the row so that operators see what failed.
"""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db

# What happened to a notification's e-mail.
MAIL_NONE = "none"  # not wanted, no address, or no mail server: the portal shows it only
MAIL_QUEUED = "queued"  # waiting for the worker (again, after a failed attempt)
MAIL_SENT = "sent"
MAIL_FAILED = "failed"  # every attempt failed; operators see it and can queue it again


class Notification(db.Model):
    """One thing someone is told: about one of their deployments, or (with no deployment) a
    budget of theirs or of a group they manage nearly or wholly used."""

    __tablename__ = "notifications"
    __table_args__ = (
        # The navigation bar's unread count and the person's list.
        Index("ix_notifications_user_read", "user_id", "read_at"),
        # The worker's question: which mails are due?
        Index("ix_notifications_mail_due", "mail_status", "mail_next_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    deployment_id: Mapped[int | None] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), nullable=True, index=True
    )
    # The timeline entry that caused it: one notification per entry, at most.
    event_id: Mapped[int | None] = mapped_column(
        ForeignKey("deployment_events.id", ondelete="SET NULL"), nullable=True, unique=True
    )
    kind: Mapped[str] = mapped_column(String(40))
    # What the words need, as it was when the event happened (the name, a link, a reason,
    # an end time), so that a renamed or deleted deployment does not change past notices.
    details: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(nullable=True)

    mail_status: Mapped[str] = mapped_column(String(10), default=MAIL_NONE)
    mail_to: Mapped[str | None] = mapped_column(String(255), nullable=True)
    mail_attempts: Mapped[int] = mapped_column(default=0)
    mail_next_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # A worker's claim on the row while it sends: others skip it until ``mail_claimed_until``.
    mail_claim: Mapped[str | None] = mapped_column(String(32), nullable=True)
    mail_claimed_until: Mapped[datetime | None] = mapped_column(nullable=True)
    mail_sent_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # The last attempt's failure, as its kind and figures (put in words by mail.failure_text).
    mail_error: Mapped[str | None] = mapped_column(Text, nullable=True)

    user: Mapped[User] = relationship()
    deployment: Mapped[Deployment | None] = relationship()
    event: Mapped[DeploymentEvent | None] = relationship()


class NotificationPreference(db.Model):
    """The kinds a person wants by e-mail; no row means the defaults (see ``kinds``)."""

    __tablename__ = "notification_preferences"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    email_kinds: Mapped[list] = mapped_column(JSON, default=list)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
