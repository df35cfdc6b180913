"""Budgets: hours of one resource per period, for a person or a group; what is left of them,
and what a launch would need of them (``budget_left``).

A period is a calendar month (UTC; renewed on the 1st) or a rolling window of N days (today
and the N-1 days before: what is used leaves the window day by day). What is used comes from
the running totals (``app.quotas.usage_totals``); a launch needs its rate (cores, GPUs of a
model, GPUs of any model) times the hours of its lease that fall inside the period (for a
calendar month, up to the renewal).

``committed``: the use still to come of what already runs, so that two launches admitted one
after the other never together pass the budget. The caller says how much that is
(``committed``: the hours an owner's running deployments will still use, up to their lease's
end, which the leases know); without it, what runs counts as used so far.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask_babel import format_date, ngettext
from flask_babel import gettext as _
from sqlalchemy import bindparam, or_, select

from app.clock import utcnow
from app.extensions import db
from app.formatting import format_decimal
from app.hours_text import hours_text
from app.quotas.budget_usage import used_by_period
from app.quotas.commitments import Committed
from app.quotas.errors import InvalidLimit
from app.quotas.models import GROUP, IN_GROUP, USER, member_subject
from app.quotas.usage_models import (
    CALENDAR_MONTH,
    CORE_HOURS,
    GPU_HOURS,
    UsageBudget,
)
from app.quotas.usage_totals import Hours, one_reading, reading_now, used_since

MODEL_PREFIX = GPU_HOURS + ":"
LONGEST_WINDOW = 366


def resource_key(gpu_model: str | None) -> str:
    """The budget key of GPU-hours of ``gpu_model`` (None: of any model)."""
    return GPU_HOURS if not gpu_model else MODEL_PREFIX + gpu_model


def model_of(resource: str) -> str | None:
    return resource[len(MODEL_PREFIX) :] if resource.startswith(MODEL_PREFIX) else None


def parse_period(text: str) -> int:
    """``month`` -> CALENDAR_MONTH; ``30d`` -> 30. Raises InvalidLimit otherwise."""
    text = (text or "").strip().lower()
    if text == "month":
        return CALENDAR_MONTH
    if text.endswith("d") and text[:-1].isdigit() and 1 <= int(text[:-1]) <= LONGEST_WINDOW:
        return int(text[:-1])
    raise InvalidLimit(
        _(
            "A period is “month” or a number of days such as “30d” (at most %(count)d).",
            count=LONGEST_WINDOW,
        )
    )


def period_text(period_days: int) -> str:
    if period_days == CALENDAR_MONTH:
        return _("per calendar month")
    return ngettext("per rolling day", "per rolling %(num)d days", period_days)


def budgets_of(scope: str, subject: str) -> list[UsageBudget]:
    return list(
        db.session.scalars(
            select(UsageBudget)
            .where(UsageBudget.scope == scope, UsageBudget.subject == subject)
            .order_by(UsageBudget.resource)
        )
    )


def set_budget(
    actor,
    scope: str,
    subject: str,
    resource: str,
    hours: float | None,
    period_days: int,
    reason: str,
) -> UsageBudget | None:
    """Set (``hours`` a number) or remove (None) one budget, saying who and why; commits.
    Raises InvalidLimit for a negative amount or a missing reason."""
    if not (reason or "").strip():
        raise InvalidLimit(_("Say why the budget changes."))
    if hours is not None and hours < 0:
        raise InvalidLimit(_("A budget is zero hours or more."))
    found = db.session.scalars(
        select(UsageBudget).where(
            UsageBudget.scope == scope,
            UsageBudget.subject == subject,
            UsageBudget.resource == resource,
        )
    ).first()
    if hours is None:
        if found is not None:
            db.session.delete(found)
        db.session.commit()
        return None
    if found is None:
        found = UsageBudget(scope=scope, subject=subject, resource=resource)
        db.session.add(found)
    found.hours, found.period_days = float(hours), period_days
    found.reason, found.updated_at = reason.strip(), utcnow()
    found.actor_name = getattr(actor, "username", "") or ""
    db.session.commit()
    return found


def period_of(period_days: int, now: datetime) -> tuple[datetime, datetime | None]:
    """(start, renewal) of the period in force at ``now``; a rolling window has no renewal."""
    today = datetime.combine(now.date(), datetime.min.time())
    if period_days == CALENDAR_MONTH:
        start = today.replace(day=1)
        renewal = datetime(start.year + start.month // 12, start.month % 12 + 1, 1)
        return start, renewal
    return today - timedelta(days=period_days - 1), None


@dataclass(frozen=True)
class BudgetCheck:
    """One budget as a launch meets it: hours needed of it, left in it, and when it renews."""

    scope: str  # USER, GROUP or IN_GROUP (the person's budget inside the group's)
    subject: str
    owner: str  # the group's name (for IN_GROUP too), or the person's username
    resource: str
    period_days: int
    budget: float
    used: float
    committed: float
    needed: float
    renews_on: date | None

    @property
    def left(self) -> float:
        return self.budget - self.used - self.committed

    @property
    def fits(self) -> bool:
        return self.needed <= self.left + 1e-9

    @property
    def model(self) -> str | None:
        return model_of(self.resource)

    def amount_text(self, hours: float) -> str:
        return hours_text(hours, self.resource, self.model)

    def body(self) -> dict:
        """The figures for scripts (the API's ``budget`` entries)."""
        return {
            "scope": self.scope,
            "owner": self.owner,
            "resource": self.resource,
            "period": "month" if self.period_days == CALENDAR_MONTH else f"{self.period_days}d",
            "budget_hours": round(self.budget, 3),
            "used_hours": round(self.used, 3),
            "committed_hours": round(self.committed, 3),
            "left_hours": round(self.left, 3),
            "needed_hours": round(self.needed, 3),
            "renews_on": self.renews_on.isoformat() if self.renews_on else None,
            "fits": self.fits,
            "message": self.sentence,
        }

    @property
    def sentence(self) -> str:
        """``needs 48 A100 GPU-hours; 20 left in group physics this month, renewed on 1
        December``, in the reader's language."""
        needs = self.amount_text(self.needed)
        left = format_decimal(round(max(self.left, 0.0), 1))
        if self.period_days == CALENDAR_MONTH:
            renewal = format_date(self.renews_on, "d MMMM")
            if self.scope == IN_GROUP:
                return _(
                    "needs %(needs)s; %(left)s left in your budget in group %(group)s this "
                    "month, renewed on %(date)s",
                    needs=needs,
                    left=left,
                    group=self.owner,
                    date=renewal,
                )
            if self.scope == GROUP:
                return _(
                    "needs %(needs)s; %(left)s left in group %(group)s this month, renewed on "
                    "%(date)s",
                    needs=needs,
                    left=left,
                    group=self.owner,
                    date=renewal,
                )
            return _(
                "needs %(needs)s; %(left)s left in your budget this month, renewed on %(date)s",
                needs=needs,
                left=left,
                date=renewal,
            )
        if self.scope == IN_GROUP:
            return _(
                "needs %(needs)s; %(left)s left in your budget in group %(group)s over the "
                "last %(days)d days",
                needs=needs,
                left=left,
                group=self.owner,
                days=self.period_days,
            )
        if self.scope == GROUP:
            return _(
                "needs %(needs)s; %(left)s left in group %(group)s over the last %(days)d days",
                needs=needs,
                left=left,
                group=self.owner,
                days=self.period_days,
            )
        return _(
            "needs %(needs)s; %(left)s left in your budget over the last %(days)d days",
            needs=needs,
            left=left,
            days=self.period_days,
        )


def _rate(resources, resource: str) -> float:
    """Per hour of ``resource`` that ``resources`` (a ``Resources`` or a charge) asks for."""
    if isinstance(resources, Mapping):
        cores, models = resources.get("cores") or 0, resources.get("gpu_models") or {}
    else:
        cores, models = resources.cpus, resources.gpu_models
    if resource == CORE_HOURS:
        return float(cores or 0)
    model = model_of(resource)
    if model is None:
        return float(sum(models.values()))
    return float(models.get(model, 0))


def hours_used(hours: Hours, resource: str) -> float:
    """The hours of ``resource`` (a budget's key) among ``hours`` used."""
    return hours.core_hours if resource == CORE_HOURS else hours.gpu(model_of(resource))


def _budgets_met(person_id: int, group: str | None) -> list:
    """The budgets of the person, and with ``group`` of the group and of the person inside it:
    one statement, built once per shape."""
    key = "group" if group else "person"
    statement = _BUDGETS_MET.get(key)
    if statement is None:
        asked = [(UsageBudget.scope == USER) & (UsageBudget.subject == bindparam("person"))]
        if group:
            asked.append((UsageBudget.scope == GROUP) & (UsageBudget.subject == bindparam("group")))
            asked.append(
                (UsageBudget.scope == IN_GROUP) & (UsageBudget.subject == bindparam("member"))
            )
        statement = _BUDGETS_MET[key] = select(UsageBudget.__table__).where(or_(*asked))
    values = {"person": str(person_id)}
    if group:
        values.update(group=group, member=member_subject(person_id, group))
    # Rows, not objects: read at every cost box, and only read.
    return list(db.session.connection().execute(statement, values))


_BUDGETS_MET: dict[str, object] = {}


def _owner_pair(owner: dict) -> tuple[int | None, str | None]:
    return owner.get("user_id"), owner.get("group_name")


def budget_left(
    person,
    group: str | None,
    request_resources,
    lease_hours: float | None,
    now: datetime | None = None,
    *,
    committed: Committed | None = None,
) -> list[BudgetCheck]:
    """Every budget a launch by ``person`` charged to ``group`` (None: none) meets (theirs,
    the group's, and theirs inside the group's): hours it
    needs of each (its rate times ``lease_hours``, or up to the renewal when the lease is
    longer or unlimited), used and committed so far, left, and the renewal; the binding ones
    (those it does not fit, then the tightest) first. Budgets the request needs nothing of
    are left out. Read-only; a caller that admits on it holds the person's and the group's
    limit rows (``operations.lock``) so that concurrent launches are counted one after the
    other."""
    now = now or reading_now()
    owners = {USER: (str(person.id), person.username, {"user_id": person.id})}
    if group:
        owners[GROUP] = (group, group, {"group_name": group})
        # The person's own budget inside the group's, set by its managers: their use
        # charged to the group.
        owners[IN_GROUP] = (
            member_subject(person.id, group),
            group,
            {"user_id": person.id, "group_name": group},
        )
    budgets = [
        budget
        for budget in _budgets_met(person.id, group)
        if _rate(request_resources, budget.resource) > 0
    ]
    if not budgets:  # most launches meet none: nothing more to read
        return []
    checks = []
    to_come: dict[tuple, Hours] = {}  # per owner and renewal: budgets of one owner share it

    # With budgets of the person's and of the group's, what runs of both is read together.
    together = {"user_id": person.id, "group_name": group} if group else None

    def committed_of(owner: dict, resource: str, until: datetime | None) -> float:
        if committed is None:
            return 0.0
        key = (tuple(sorted(owner.items())), until)
        if key not in to_come:
            to_come[key] = committed(owner, now, until, together)
        return hours_used(to_come[key], resource)

    periods = {b.id: period_of(b.period_days, now) for b in budgets}
    # Every owner's use in each period of theirs read together, in one statement: the totals,
    # and what they do not hold yet of the one owner the budgets are of, or of the person and
    # the group at once.
    asked = sorted({(b.scope, periods[b.id][0]) for b in budgets})
    scopes = {scope for scope, _start in asked}
    if len(scopes) == 1:
        opening = (*_owner_pair(owners[next(iter(scopes))][2]), False)
    else:
        opening = (person.id, group, True)
    with one_reading(now):
        used = used_by_period(
            [(owners[scope][2], start) for scope, start in asked], now, opening=opening
        )
    used_in = dict(zip(asked, used, strict=True))
    # In the owners' order, then the budgets' (ties keep it once sorted).
    for budget in sorted(budgets, key=lambda b: list(owners).index(b.scope)):
        subject, label, owner = owners[budget.scope]
        start, renewal = periods[budget.id]
        span = renewal - now if renewal else timedelta(days=budget.period_days)
        hours = span / timedelta(hours=1)
        if lease_hours is not None:
            hours = min(hours, float(lease_hours))
        checks.append(
            BudgetCheck(
                scope=budget.scope,
                subject=subject,
                owner=label,
                resource=budget.resource,
                period_days=budget.period_days,
                budget=budget.hours,
                used=hours_used(used_in[budget.scope, start], budget.resource),
                committed=committed_of(owner, budget.resource, renewal),
                needed=_rate(request_resources, budget.resource) * hours,
                renews_on=renewal.date() if renewal else None,
            )
        )
    return sorted(checks, key=lambda c: (c.fits, c.left - c.needed))


def group_budget_use(now: datetime | None = None) -> list[tuple[str, str, str, float, float]]:
    """(group, resource, period, budget hours, hours used this period) of every group budget:
    the operators' metrics (groups only, so that the label count stays bounded)."""
    now = now or utcnow()
    rows = db.session.scalars(
        select(UsageBudget)
        .where(UsageBudget.scope == GROUP)
        .order_by(UsageBudget.subject, UsageBudget.resource)
    )
    found, used_cache = [], {}
    for budget in rows:
        start, _renewal = period_of(budget.period_days, now)
        key = (budget.subject, start)
        if key not in used_cache:
            used_cache[key] = used_since(start, group_name=budget.subject, now=now)
        period = "month" if budget.period_days == CALENDAR_MONTH else f"{budget.period_days}d"
        used = hours_used(used_cache[key], budget.resource)
        found.append((budget.subject, budget.resource, period, budget.hours, used))
    return found
