"""Usage kept as running totals, and budgets over a period.

A deployment that holds resources (``app.quotas.holding``) has one *mark*: what it is charged
(per hour) and since when its use is not yet written down. When it stops holding, or its charge
or owner changes, the time since the mark becomes a *piece* (a closed interval), and the worker
folds pieces into *totals* per day and per month. Totals plus the few pieces not yet folded plus
the open part of the marks are the usage at any instant, to the second, without summing over
deployments. See ``app.quotas.usage_totals``.

Budgets: an amount of core-hours or GPU-hours (of one model, or of any) over a period (a
calendar month, or a rolling window of some days), for one person or one group.
"""

from datetime import date, datetime

from sqlalchemy import JSON, Date, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.clock import utcnow
from app.extensions import db

DAY, MONTH = "day", "month"
# The ``gpu_model`` of the row that carries core-hours and memory (GB-hours).
CORES_ROW = ""
# The ``user_id`` of a group's own total: the sum of its members' rows, kept beside them so
# that a group's use is read from one row per day or month, however many people it has.
WHOLE_GROUP = 0


class UsageTotal(db.Model):
    """Hours used by one person in one group (``""``: none) in one day or month (UTC): the
    row of ``gpu_model`` ``""`` carries core-hours and memory GB-hours, each model's row its
    GPU-hours. Rows of ``user_id`` WHOLE_GROUP carry each group's own sum (never for
    ``""``); sums over people leave them out."""

    __tablename__ = "usage_totals"
    __table_args__ = (
        Index("ix_usage_totals_user", "span", "user_id", "start"),
        # A group's own rows first, then its members': see WHOLE_GROUP.
        Index("ix_usage_totals_group", "span", "group_name", "user_id", "start"),
    )

    span: Mapped[str] = mapped_column(String(5), primary_key=True)
    start: Mapped[date] = mapped_column(Date, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    group_name: Mapped[str] = mapped_column(String(255), primary_key=True)
    gpu_model: Mapped[str] = mapped_column(String(64), primary_key=True)
    core_hours: Mapped[float] = mapped_column(Float, default=0.0)
    memory_gb_hours: Mapped[float] = mapped_column(Float, default=0.0)
    gpu_hours: Mapped[float] = mapped_column(Float, default=0.0)


class UsageMark(db.Model):
    """A deployment holding resources: its rate, and since when its use is not written down."""

    __tablename__ = "usage_marks"
    __table_args__ = (
        Index("ix_usage_marks_user", "user_id"),
        Index("ix_usage_marks_group", "group_name"),
    )

    deployment_id: Mapped[int] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(Integer)
    group_name: Mapped[str] = mapped_column(String(255), default="")
    since: Mapped[datetime] = mapped_column()
    cores: Mapped[float] = mapped_column(Float, default=0.0)
    memory_gb: Mapped[float] = mapped_column(Float, default=0.0)
    gpu_models: Mapped[dict] = mapped_column(JSON, default=dict)


class UsagePiece(db.Model):
    """A closed interval of one deployment's use, written down and not yet folded into the
    totals (the worker folds it, then deletes it, in one transaction)."""

    __tablename__ = "usage_pieces"
    __table_args__ = (
        Index("ix_usage_pieces_user", "user_id"),
        Index("ix_usage_pieces_group", "group_name"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer)
    group_name: Mapped[str] = mapped_column(String(255), default="")
    start: Mapped[datetime] = mapped_column()
    end: Mapped[datetime] = mapped_column()
    cores: Mapped[float] = mapped_column(Float, default=0.0)
    memory_gb: Mapped[float] = mapped_column(Float, default=0.0)
    gpu_models: Mapped[dict] = mapped_column(JSON, default=dict)


# What a budget counts: core-hours, GPU-hours of any model, or of one model ("gpu:A100").
CORE_HOURS, GPU_HOURS = "cores", "gpus"
# A budget's period: a calendar month (UTC), or the last ``period_days`` days.
CALENDAR_MONTH = 0


class UsageBudget(db.Model):
    """How many hours of one resource one person (scope ``user``, subject the user id) or one
    group (scope ``group``) may use per period, with who set it last and why."""

    __tablename__ = "usage_budgets"

    id: Mapped[int] = mapped_column(primary_key=True)
    scope: Mapped[str] = mapped_column(String(10))
    subject: Mapped[str] = mapped_column(String(255))
    # CORE_HOURS, GPU_HOURS (any model) or "gpus:<model>".
    resource: Mapped[str] = mapped_column(String(80))
    hours: Mapped[float] = mapped_column(Float)
    period_days: Mapped[int] = mapped_column(Integer, default=CALENDAR_MONTH)
    reason: Mapped[str] = mapped_column(Text, default="")
    actor_name: Mapped[str] = mapped_column(String(255), default="")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index("uq_usage_budgets_subject", "scope", "subject", "resource", unique=True),
    )


class BudgetWarning(db.Model):
    """A warning given that a budget's use reached ``threshold`` per cent in one period: at
    most one per budget, period and threshold (the key), so that hosts racing to give it
    insert it once and only the one that did tells anyone. ``hours`` and ``period_days`` are
    the amount and period it was given at: a budget changed since is warned about afresh.

    A rolling window's "period" is one crossing of the threshold: ``period_start`` is when
    the previous crossing was re-armed (``rearmed_at``, set once the use fell back enough),
    or the first instant of 1970 for the first one (``app.quotas.budget_warnings``)."""

    __tablename__ = "budget_warnings"

    budget_id: Mapped[int] = mapped_column(
        ForeignKey("usage_budgets.id", ondelete="CASCADE"), primary_key=True
    )
    period_start: Mapped[datetime] = mapped_column(primary_key=True)
    threshold: Mapped[int] = mapped_column(Integer, primary_key=True)
    hours: Mapped[float] = mapped_column(Float)
    used: Mapped[float] = mapped_column(Float)
    warned_at: Mapped[datetime] = mapped_column(default=utcnow)
    period_days: Mapped[int] = mapped_column(Integer, server_default="0")
    rearmed_at: Mapped[datetime | None] = mapped_column(default=None)
