"""Quota limits for users, groups and the site, and the history of every change to them.

A limit set is a JSON mapping with any of the keys in LIMIT_KEYS plus ``gpu_models`` (a
mapping of GPU model to a number). A key that is absent means "not set here" (the next level
decides); a key set to None means "unlimited"; a number is the limit. Memory and disk are in
bytes, cores may be fractional.

Rows are identified by (scope, subject):

- ("user", "<user id>"): one person's own limits;
- ("member", "<group>"): the default limits of each member of the group;
- ("group", "<group>"): the group's own pool, shared by the deployments charged to it;
- ("in-group", "<user id>:<group>"): one member's share of the group's pool, set by its
  managers (never above the pool's own), binding that person's deployments charged to the
  group (``member_subject`` writes the subject; ``app.quotas.member_limits`` owns the rule);
- ("site", ""): the default for everyone.

Budgets (``usage_models.UsageBudget``) use the same scopes: "user", "group", "in-group".

Reserving a launch locks the user's row and the pool's row (creating them, empty, if missing),
so their existence means nothing by itself.
"""

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Float, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.clock import utcnow
from app.extensions import db

USER, MEMBER, GROUP, SITE = "user", "member", "group", "site"
IN_GROUP = "in-group"
SCOPES = (USER, MEMBER, GROUP, SITE, IN_GROUP)
LIMIT_KEYS = ("cores", "gpus", "memory", "disk", "deployments")


def member_subject(user_id: int, group_name: str) -> str:
    """The subject of one member's limits and budgets in a group: ``"12:physics"`` (the id
    first, so that a group's name may hold any character)."""
    return f"{int(user_id)}:{group_name}"


class QuotaLimit(db.Model):
    """The limits set at one level: a user, a group's members, a group's pool, or the site."""

    __tablename__ = "quota_limits"
    __table_args__ = (UniqueConstraint("scope", "subject", name="uq_quota_limits_scope_subject"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    scope: Mapped[str] = mapped_column(String(10))
    # A user id (as text) for "user", a group name for "member" and "group", "" for "site".
    subject: Mapped[str] = mapped_column(String(255))
    limits: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"<QuotaLimit {self.scope}:{self.subject} {self.limits}>"


class QuotaChange(db.Model):
    """One change of a limit set: who made it, when, the limits before and after, and why."""

    __tablename__ = "quota_changes"
    __table_args__ = (Index("ix_quota_changes_scope_subject", "scope", "subject", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    # Kept as text too: the record outlives the account. Empty: the command line, which acts as
    # nobody in particular (worded when shown, in the reader's language).
    actor_name: Mapped[str] = mapped_column(String(255), default="")
    scope: Mapped[str] = mapped_column(String(10))
    subject: Mapped[str] = mapped_column(String(255))
    old: Mapped[dict] = mapped_column(JSON, default=dict)
    new: Mapped[dict] = mapped_column(JSON, default=dict)
    reason: Mapped[str] = mapped_column(Text, default="")


class QuotaCharge(db.Model):
    """A deployment's charge in plain columns, kept in step with ``Deployment.charge`` (see
    ``app.quotas.charges``) so that usage is summed without reading JSON row by row."""

    __tablename__ = "quota_charges"

    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), primary_key=True
    )
    cores: Mapped[float] = mapped_column(Float, default=0.0)
    memory: Mapped[int] = mapped_column(BigInteger, default=0)
    disk: Mapped[int] = mapped_column(BigInteger, default=0)
    gpus: Mapped[int] = mapped_column(default=0)


class QuotaGpuCharge(db.Model):
    """The GPUs of one model a deployment was charged (one row per model)."""

    __tablename__ = "quota_gpu_charges"

    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), primary_key=True
    )
    model: Mapped[str] = mapped_column(String(64), primary_key=True)
    count: Mapped[int] = mapped_column(default=0)
