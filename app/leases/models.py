"""Lease policies, the history of every change to them, and each deployment's lease.

A policy row is identified by (template_slug, group_name), "" meaning "any": ("", "") is the
site's, ("", G) group G's, (T, "") template T's, (T, G) template T launched in group G. Its
``values`` hold the fields it sets (see app.leases.policy.FIELDS); an absent field is decided
by a less specific level.
"""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db

# A lease's states. WAITING: chosen at launch, the clock starts when the deployment is ready;
# RUNNING: counting down (warnings due on the way); GRACE: ended, deleted when grace ends;
# FAILED: a failed creation, removed after the failed-cleanup time; DELETING: the portal asked
# the backend to delete it; DELETE_FAILED: that delete was refused, tried again later;
# DONE: nothing left to do.
WAITING, RUNNING, GRACE, FAILED = "waiting", "running", "grace", "failed"
DELETING, DELETE_FAILED, DONE = "deleting", "delete-failed", "done"
STATES = (WAITING, RUNNING, GRACE, FAILED, DELETING, DELETE_FAILED, DONE)


class LeasePolicy(db.Model):
    """The lease fields set at one level: site, group, template, or template within group."""

    __tablename__ = "lease_policies"
    __table_args__ = (
        UniqueConstraint("template_slug", "group_name", name="uq_lease_policies_level"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    template_slug: Mapped[str] = mapped_column(String(100), default="")
    group_name: Mapped[str] = mapped_column(String(255), default="")
    values: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class LeasePolicyChange(db.Model):
    """One change of a policy: who made it, when, the fields before and after, and why."""

    __tablename__ = "lease_policy_changes"
    __table_args__ = (Index("ix_lease_policy_changes_level", "template_slug", "group_name", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    # Kept as text too: the record outlives the account. Empty: the command line, which acts as
    # nobody in particular (worded when shown, in the reader's language).
    actor_name: Mapped[str] = mapped_column(String(255), default="")
    template_slug: Mapped[str] = mapped_column(String(100), default="")
    group_name: Mapped[str] = mapped_column(String(255), default="")
    old: Mapped[dict] = mapped_column(JSON, default=dict)
    new: Mapped[dict] = mapped_column(JSON, default=dict)
    reason: Mapped[str] = mapped_column(Text, default="")


class Lease(db.Model):
    """How long one deployment may live: chosen at launch (or given at adoption), counted from
    when it became ready.

    ``next_at`` is when the expiry pass must next look at it (a warning, the end, the end of
    grace, a failed creation's removal, a delete to try again); None when nothing is due. The
    pass reads only the index on it, so its cost follows what is due, not the table.
    ``warned_before`` is the distance (minutes before the end) of the last warning given for
    the current end, so no warning is given twice. ``end_set_at`` is when the current end was
    chosen (the start or the last extend): warnings that fall before it are not given.
    """

    __tablename__ = "leases"
    __table_args__ = (Index("ix_leases_next_at", "next_at"),)

    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), primary_key=True
    )
    state: Mapped[str] = mapped_column(String(20), default=WAITING)
    # The duration chosen (minutes); None: no expiry.
    minutes: Mapped[int | None] = mapped_column(nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    ends_at: Mapped[datetime | None] = mapped_column(nullable=True)
    end_set_at: Mapped[datetime | None] = mapped_column(nullable=True)
    extends: Mapped[int] = mapped_column(default=0)
    warned_before: Mapped[int | None] = mapped_column(nullable=True)
    delete_at: Mapped[datetime | None] = mapped_column(nullable=True)
    failed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    next_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # Why the last delete at expiry did not go through, shown to the owner and to admins.
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)

    deployment: Mapped[Deployment] = relationship()
