"""Warnings that a budget is nearly or wholly used: at 80 and at 100 per cent of its hours,
once per crossing of each threshold, whichever host notices first.

The worker's budgets pass reads every budget's use so far in its period (the running totals
with what is not yet folded into them, to the second: it need not wait for the usage pass) and
records each threshold reached as a ``BudgetWarning``. Its key (budget, period, threshold)
makes the record the warning's one owner: hosts racing to record it insert it once
(``ON CONFLICT DO NOTHING``), and only the pass whose insert landed tells anyone, through
``BUDGET_WARNINGS``, in the same transaction. A budget whose amount or period changed since
its warning is warned about afresh (the old record is replaced).

A calendar month's period is the month: each threshold warns once a month at most.

A rolling window of N days has no period of its own: it moves every day, and the use it holds
falls as old days leave it. Its warnings follow the window. A threshold warns when the use of
the last N days reaches it; it does not warn again while the use stays there, whatever the
date, and is *re-armed* once the use has fallen back below it by ``REARM_MARGIN`` points
(80 % re-arms below 70 %, 100 % below 90 %), so that a use hovering about a threshold, a
little under it at midnight and over it again by noon, is not told of every day. Once
re-armed, reaching the threshold again warns again. Each crossing is one record: its
``period_start`` is when the crossing before it was re-armed (``rearmed_at``, set by the
first pass that sees the use low enough, ``WHERE rearmed_at IS NULL``), or ``FIRST_CROSSING``
for the first, so that hosts racing over the same crossing compute the same key and insert it
once. Only the latest crossing of each threshold is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from app.auth.models import User
from app.clock import utcnow
from app.extension_points import BUDGET_WARNINGS
from app.extensions import db
from app.quotas.budgets import hours_used, model_of, period_of
from app.quotas.models import GROUP, USER
from app.quotas.usage_models import (
    CALENDAR_MONTH,
    CORE_HOURS,
    GPU_HOURS,
    BudgetWarning,
    UsageBudget,
)
from app.quotas.usage_totals import Hours, used_since
from app.worker import out_of_time

THRESHOLDS = (80, 100)
# Points of the budget a rolling window's use falls below a threshold before it warns again.
REARM_MARGIN = 10
# The key of the first crossing of a rolling window's threshold.
FIRST_CROSSING = datetime(1970, 1, 1)


@dataclass(frozen=True)
class BudgetReached:
    """A budget whose use reached ``threshold`` per cent of its ``hours`` in this period."""

    scope: str  # USER or GROUP
    subject: str  # the user id, or the group's name
    owner: str  # the person's username, or the group's name
    counts: str  # CORE_HOURS or GPU_HOURS
    model: str | None  # the GPU model counted (None: any)
    hours: float
    used: float
    threshold: int
    period_days: int
    renews_on: date | None


@dataclass(frozen=True)
class Warned:
    """What one pass did: the warnings it gave."""

    given: int

    @property
    def acted(self) -> bool:
        return bool(self.given)

    def __str__(self) -> str:
        return f"{self.given} budget warning(s) given"


def warning_period(period_days: int, now: datetime) -> datetime:
    """The start of the calendar month whose warnings ``now`` falls in."""
    return period_of(period_days, now)[0]


def reached(used: float, hours: float) -> list[int]:
    """The thresholds ``used`` hours reach of a budget of ``hours`` (none for a budget of
    nothing: it refuses every launch, and has nothing to warn about)."""
    if hours <= 0:
        return []
    return [threshold for threshold in THRESHOLDS if used >= hours * threshold / 100 - 1e-9]


def rearmed(used: float, hours: float, threshold: int) -> bool:
    """Whether ``used`` hours are far enough below ``threshold`` per cent of ``hours`` for a
    rolling window's warning of it to be given again."""
    return used < hours * (threshold - REARM_MARGIN) / 100 - 1e-9


def warn_once(now: datetime | None = None) -> Warned:
    """The worker's budgets pass: record and tell each threshold newly reached (and re-arm
    the rolling windows' thresholds the use fell back from), committing budget by budget.
    Safe on any number of hosts at once."""
    now = now or utcnow()
    budgets = db.session.execute(select(UsageBudget.__table__).order_by(UsageBudget.id)).all()
    # Rolling windows with a crossing not yet re-armed: read even when nothing is reached.
    armed = set(
        db.session.scalars(
            select(BudgetWarning.budget_id).where(
                BudgetWarning.period_days != CALENDAR_MONTH, BudgetWarning.rearmed_at.is_(None)
            )
        )
    )
    db.session.rollback()
    used_by: dict[tuple, Hours] = {}
    given = 0
    for budget in budgets:
        if out_of_time():
            break
        start, renewal = period_of(budget.period_days, now)
        key = (budget.scope, budget.subject, start)
        if key not in used_by:
            used_by[key] = used_since(start, now=now, **_owner(budget))
        used = hours_used(used_by[key], budget.resource)
        thresholds = reached(used, budget.hours)
        if not thresholds and budget.id not in armed:
            continue
        try:
            if budget.period_days == CALENDAR_MONTH:
                newly = _record(
                    budget, warning_period(budget.period_days, now), thresholds, used, now
                )
            else:
                newly = _record_crossings(budget, used, now)
            if newly:
                _tell(budget, used, max(newly), renewal)
            db.session.commit()
        except IntegrityError:  # the budget was removed meanwhile: nothing to warn about
            db.session.rollback()
            continue
        given += bool(newly)
    return Warned(given)


def _tell(budget, used: float, threshold: int, renewal: datetime | None) -> None:
    """Hand the news to whoever tells people (``BUDGET_WARNINGS``), in this transaction."""
    news = BudgetReached(
        scope=budget.scope,
        subject=budget.subject,
        owner=_owner_name(budget),
        counts=CORE_HOURS if budget.resource == CORE_HOURS else GPU_HOURS,
        model=model_of(budget.resource),
        hours=budget.hours,
        used=used,
        threshold=threshold,
        period_days=budget.period_days,
        renews_on=renewal.date() if renewal else None,
    )
    for tell in BUDGET_WARNINGS.each():
        tell(news)


def _owner(budget) -> dict:
    if budget.scope == USER:
        return {"user_id": int(budget.subject)}
    return {"group_name": budget.subject}


def _owner_name(budget) -> str:
    if budget.scope == GROUP:
        return budget.subject
    user = db.session.get(User, int(budget.subject))
    return user.username if user is not None else budget.subject


def _record(budget, period_start: datetime, thresholds: list[int], used: float, now) -> list[int]:
    """A calendar month's warnings: insert the warning of each of ``thresholds`` not yet
    given this month at this amount; the thresholds whose insert landed (another host's, made
    first, wins the others)."""
    mine = BudgetWarning.budget_id == budget.id
    # Given at another amount, or for a rolling window: the budget changed since, and is
    # warned about afresh.
    db.session.execute(
        delete(BudgetWarning).where(
            mine,
            ((BudgetWarning.period_start == period_start) & (BudgetWarning.hours != budget.hours))
            | (BudgetWarning.period_days != CALENDAR_MONTH),
        )
    )
    return [
        threshold for threshold in thresholds if _insert(budget, period_start, threshold, used, now)
    ]


def _record_crossings(budget, used: float, now: datetime) -> list[int]:
    """A rolling window's crossings: re-arm each threshold the use fell back from, and insert
    the warning of each threshold reached again since it was re-armed (or for the first
    time); the thresholds whose insert landed."""
    mine = BudgetWarning.budget_id == budget.id
    changed = (BudgetWarning.hours != budget.hours) | (
        BudgetWarning.period_days != budget.period_days
    )
    # Given at another amount or for another period: warned about afresh.
    db.session.execute(delete(BudgetWarning).where(mine, changed))
    latest = {}
    for row in db.session.execute(
        select(BudgetWarning.__table__).where(mine).order_by(BudgetWarning.period_start)
    ):
        latest[row.threshold] = row
    landed = []
    for threshold in THRESHOLDS if budget.hours > 0 else ():
        crossing = latest.get(threshold)
        if crossing is not None and crossing.rearmed_at is None:
            # A pass that read the use before this warning was given does not re-arm it; the
            # first pass to see the use low enough re-arms it, the others find it done.
            if rearmed(used, budget.hours, threshold) and crossing.warned_at <= now:
                db.session.execute(
                    update(BudgetWarning)
                    .where(
                        mine,
                        BudgetWarning.threshold == threshold,
                        BudgetWarning.period_start == crossing.period_start,
                        BudgetWarning.rearmed_at.is_(None),
                    )
                    .values(rearmed_at=now)
                )
            continue
        if threshold not in reached(used, budget.hours):
            continue
        key = crossing.rearmed_at if crossing is not None else FIRST_CROSSING
        if _insert(budget, key, threshold, used, now):
            landed.append(threshold)
            # Only the latest crossing is needed to find the next one's key.
            db.session.execute(
                delete(BudgetWarning).where(
                    mine, BudgetWarning.threshold == threshold, BudgetWarning.period_start < key
                )
            )
    return landed


def _insert(budget, period_start: datetime, threshold: int, used: float, now) -> bool:
    """Insert the warning of ``threshold`` under its key; whether this insert landed (another
    host's, made first, wins)."""
    insert = pg_insert if db.session.connection().dialect.name == "postgresql" else sqlite_insert
    statement = (
        insert(BudgetWarning)
        .values(
            budget_id=budget.id,
            period_start=period_start,
            threshold=threshold,
            hours=budget.hours,
            used=used,
            warned_at=now,
            period_days=budget.period_days,
        )
        .on_conflict_do_nothing(index_elements=["budget_id", "period_start", "threshold"])
        # A row comes back only when this insert landed (the row count is not to be trusted
        # here on every driver).
        .returning(BudgetWarning.threshold)
    )
    return db.session.execute(statement).first() is not None
