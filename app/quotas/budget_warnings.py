"""Warnings that a budget is nearly or wholly used: at 80 and at 100 per cent of its hours, once
per budget, period and threshold, whichever host notices first.

The worker's budgets pass reads every budget's use so far in its period (the running totals
with what is not yet folded into them, to the second: it need not wait for the usage pass) and
records each threshold reached as a ``BudgetWarning``. Its key (budget, period, threshold)
makes the record the warning's one owner: hosts racing to record it insert it once
(``ON CONFLICT DO NOTHING``), and only the pass whose insert landed tells anyone, through
``BUDGET_WARNINGS``, in the same transaction. A new period warns again; so does a budget whose
amount changed since its warning (the old record is replaced).

A calendar month's period is the month. A rolling window has no period of its own (it moves
every day), so its warnings are kept per block of as many days as the window: a window that
stays over its threshold is warned about once per window's length.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import delete, select
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
_EPOCH = date(1970, 1, 1)


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
    """The start of the period whose warnings ``now`` falls in: the calendar month, or the
    block of ``period_days`` days (counted from 1 January 1970) of a rolling window."""
    if period_days == CALENDAR_MONTH:
        return period_of(period_days, now)[0]
    days = (now.date() - _EPOCH).days // period_days * period_days
    return datetime.combine(_EPOCH + timedelta(days=days), datetime.min.time())


def reached(used: float, hours: float) -> list[int]:
    """The thresholds ``used`` hours reach of a budget of ``hours`` (none for a budget of
    nothing: it refuses every launch, and has nothing to warn about)."""
    if hours <= 0:
        return []
    return [threshold for threshold in THRESHOLDS if used >= hours * threshold / 100 - 1e-9]


def warn_once(now: datetime | None = None) -> Warned:
    """The worker's budgets pass: record and tell each threshold newly reached, committing
    budget by budget. Safe on any number of hosts at once."""
    now = now or utcnow()
    budgets = db.session.execute(select(UsageBudget.__table__).order_by(UsageBudget.id)).all()
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
        if not thresholds:
            continue
        try:
            newly = _record(budget, warning_period(budget.period_days, now), thresholds, used, now)
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
    """Insert the warning of each of ``thresholds`` not yet given this period at this amount;
    the thresholds whose insert landed (another host's, made first, wins the others)."""
    same_period = (BudgetWarning.budget_id == budget.id) & (
        BudgetWarning.period_start == period_start
    )
    # Given at another amount: the budget changed since, and is warned about afresh.
    db.session.execute(
        delete(BudgetWarning).where(same_period, BudgetWarning.hours != budget.hours)
    )
    insert = pg_insert if db.session.connection().dialect.name == "postgresql" else sqlite_insert
    landed = []
    for threshold in thresholds:
        statement = (
            insert(BudgetWarning)
            .values(
                budget_id=budget.id,
                period_start=period_start,
                threshold=threshold,
                hours=budget.hours,
                used=used,
                warned_at=now,
            )
            .on_conflict_do_nothing(index_elements=["budget_id", "period_start", "threshold"])
            # A row comes back only when this insert landed (the row count is not to be
            # trusted here on every driver).
            .returning(BudgetWarning.threshold)
        )
        if db.session.execute(statement).first() is not None:
            landed.append(threshold)
    return landed
