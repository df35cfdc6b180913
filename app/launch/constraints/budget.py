"""The budgets over a period (``app.quotas.budgets``): a launch is charged its projected use,
its rate for the hours of its lease, against what is left of each budget of the person and of
the group it is charged to. Running deployments count what they will still use up to their
lease's end (``committed_hours``), so launches admitted one after the other never together
pass a budget (the decision is taken under the quotas' locks, and this reads under them).

The hours charged: the lease chosen at launch; with none chosen, the policy's default (what
the lease starts with once the deployment is ready); a launch that never expires is charged
to the end of the period (to the renewal of a calendar month, the whole of a rolling window).

Over a budget, a launch may wait in line only when every budget it overruns renews before the
line's longest wait (``LINE_MAX_WAIT``) and the launch fits a whole renewed budget; it waits
in the line of the resource the budget counts, and the admission pass starts it once the
budget has room again. Otherwise it is refused (OverBudget: the API's problem ``budget``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import (
    DateTime,
    String,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal_column,
    or_,
    select,
)

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db
from app.launch.constraints.hold import Claim, Hold
from app.leases.errors import InvalidPolicy
from app.leases.models import WAITING, Lease
from app.leases.operations import check_choice
from app.leases.policy import resolve, resolver
from app.lines import settings, wording
from app.lines.places import Line
from app.quotas.budgets import BudgetCheck, budget_left, period_of
from app.quotas.commitments import Committed
from app.quotas.errors import OverBudget
from app.quotas.models import GROUP, USER
from app.quotas.usage_models import CALENDAR_MONTH, CORE_HOURS, UsageMark
from app.quotas.usage_today import julian_day
from app.quotas.usage_totals import Hours

KIND = "budget"


def lease_hours(template_slug: str, group_name: str | None, minutes: int | None) -> float | None:
    """The hours a launch is charged for (see the module's docstring); None: to the end of
    the period."""
    policy = resolve(template_slug, group_name)
    try:
        chosen = check_choice(policy, minutes)
    except InvalidPolicy:
        chosen = policy.longest_initial  # the form refuses it; the box counts the most allowed
    return chosen / 60 if chosen else None


def lease_ends(deployment_ids: Iterable[int]) -> dict[int, datetime | None]:
    """When each of ``deployment_ids`` stops using what it holds, as far as the portal knows:
    its lease's end; a lease whose clock has not started yet (not ready) from now for its
    chosen length; without a lease row yet, its policy's default from now. None: no end (it
    never expires), so it counts only what it has used so far."""
    ids = list(deployment_ids)
    now = utcnow()
    leases = {
        lease.deployment_id: lease
        for lease in db.session.scalars(select(Lease).where(Lease.deployment_id.in_(ids)))
    }
    ends: dict[int, datetime | None] = {}
    for deployment_id, lease in leases.items():
        if lease.ends_at is not None:
            ends[deployment_id] = lease.delete_at or lease.ends_at
        elif lease.state == WAITING and lease.minutes:
            ends[deployment_id] = now + timedelta(minutes=lease.minutes)
    missing = [i for i in ids if i not in leases]
    if missing:
        policy_of = resolver()
        rows = db.session.execute(
            select(Deployment.id, Deployment.template_slug, Deployment.group_name).where(
                Deployment.id.in_(missing)
            )
        )
        for deployment_id, slug, group in rows:
            policy = policy_of(slug, group)
            if policy.expires:
                ends[deployment_id] = now + timedelta(minutes=policy.default)
    return ends


def committed_hours(excluding: int | None = None) -> Committed:
    """What an owner's running deployments (but ``excluding``) will still use, up to their
    ends as ``lease_ends`` gives them and up to ``until``: summed in the database per set of
    GPU models, and per template and group for those with no lease yet (whose end is their
    policy's default), so that a group running thousands costs a few rows, not thousands.

    The budgets of one owner ask it without end and up to their calendar month's renewal:
    one statement (built once, then kept) sums both. Asked with ``together`` (the person and
    the group at once, as ``budget_left`` asks), it sums the deployments of either in that one
    statement, each row saying whose it is, and answers the person, the group and the person
    in the group from it; the answer is kept. The lease policies are read once for all."""
    read: dict[tuple, list] = {}
    parsed: dict[str | None, dict] = {}  # each set of GPU models read once for all owners
    policies: list = []  # the resolver, made on first need

    def policy_of(slug: str, group: str):
        if not policies:
            policies.append(resolver())
        return policies[0](slug, group)

    def committed(
        owner: dict, now: datetime, until: datetime | None, together: dict | None = None
    ) -> Hours:
        # The statement's cap: ``until``, or without one the month's renewal, so that the
        # answer serves both questions a month's and a window's budgets ask.
        capped_at = until or period_of(CALENDAR_MONTH, now)[1]
        cap = max((capped_at - now).total_seconds(), 0.0)
        asked = owner
        if together and len(together) == 2 and owner.items() <= together.items():
            asked = together
        key = (tuple(sorted(asked.items())), now, cap)
        if key not in read:
            read[key] = _committed_rows(asked, now, cap, excluding)
        mine_wanted, ours_wanted = "user_id" in owner, "group_name" in owner
        total = Hours()
        for mine, ours, text, unleased, slug, group, count, cores, rows in read[key]:
            if (mine_wanted and not mine) or (ours_wanted and not ours):
                continue
            summed, core_seconds = rows[2:] if until else rows[:2]
            if text not in parsed:
                parsed[text] = json.loads(text) if text else {}
            if unleased:  # ends at its policy's default from now, if its policy expires
                policy = policy_of(slug, group)
                if not policy.expires:
                    continue
                each = policy.default * 60.0
                each = max(min(each, cap), 0.0) if until else each
                summed, core_seconds = count * each, float(cores or 0) * each
            total.core_hours += float(core_seconds or 0) / 3600
            for model, number in (parsed[text] or {}).items():
                hours = float(number) * float(summed or 0) / 3600
                total.gpu_hours[model] = total.gpu_hours.get(model, 0.0) + hours
        return total

    return committed


def _committed_rows(owner: dict, now: datetime, cap: float, excluding: int | None) -> list:
    """(the person's, the group's, models, unleased, slug, group, count, cores, (seconds,
    core-seconds without end, the same capped at ``cap`` seconds)) of the owner's running
    deployments; an owner of both a person and a group reads those of either."""
    dialect = db.engine.dialect.name
    shape = (dialect, tuple(sorted(owner)), excluding is not None)
    statement = _COMMITTED.get(shape)
    if statement is None:
        statement = _COMMITTED[shape] = _committed_statement(dialect, owner, excluding)
    values = {**owner, "cap": cap}
    if excluding is not None:
        values["excluding"] = excluding
    if dialect == "postgresql":
        values["now"] = now
    else:
        values["now_day"] = julian_day(now)
    return [
        (bool(mine), bool(ours), text, unleased, slug, group, count, cores, tuple(sums))
        for mine, ours, text, unleased, slug, group, count, cores, *sums in (
            db.session.connection().execute(statement, values)
        )
    ]


# The statement of ``_committed_rows`` per dialect and shape of owner, built once: building it
# costs more than running it (it is asked at every cost box that meets a budget).
_COMMITTED: dict[tuple, object] = {}


def _committed_statement(dialect: str, owner: dict, excluding: int | None):
    m = UsageMark
    end = func.coalesce(Lease.delete_at, Lease.ends_at)
    if dialect == "postgresql":
        to_end = func.extract("epoch", end - bindparam("now", type_=DateTime))
    else:  # as ``usage_today.seconds_after``, now's day number given
        to_end = func.round((func.julianday(end) - bindparam("now_day")) * 86400.0, 3)
    seconds = case(
        (Lease.ends_at.is_not(None), to_end),
        (and_(Lease.state == WAITING, Lease.minutes > 0), Lease.minutes * 60.0),
        else_=0.0,
    )
    capped = _at_least_zero(_at_most(seconds, bindparam("cap")))
    seconds = _at_least_zero(seconds)
    no_lease = Lease.deployment_id.is_(None)
    models = cast(m.gpu_models, String)
    mine, ours = _whose(m.user_id, "user_id", owner), _whose(m.group_name, "group_name", owner)
    where = [getattr(m, key) == bindparam(key) for key in sorted(owner)]
    if len(where) > 1:  # the person's and the group's together, each row saying whose
        where = [or_(*where)]
    if excluding is not None:
        where.append(m.deployment_id != bindparam("excluding"))
    slug, group = (
        case((no_lease, Deployment.template_slug)),
        case((no_lease, Deployment.group_name)),
    )
    return (
        select(
            mine,
            ours,
            models,
            no_lease,
            slug,
            group,
            func.count(),
            func.sum(m.cores),
            func.sum(seconds),
            func.sum(m.cores * seconds),
            func.sum(capped),
            func.sum(m.cores * capped),
        )
        .select_from(m)
        .join(Deployment, Deployment.id == m.deployment_id)
        .outerjoin(Lease, Lease.deployment_id == m.deployment_id)
        .where(*where)
        .group_by(*([mine, ours] if len(owner) > 1 else []), models, no_lease, slug, group)
    )


def _whose(column, key: str, owner: dict):
    """1 for a row of the owner's ``key`` (the person, or the group), else 0: asked of a
    person and a group together; of one owner, every row is theirs (the constant 1)."""
    if len(owner) == 1:
        return literal_column("1")
    return case((column == bindparam(key), 1), else_=0)


def _at_most(expression, cap):
    if db.engine.dialect.name == "postgresql":
        return func.least(expression, cap)
    return func.min(expression, cap)  # SQLite's min of several values


def _at_least_zero(expression):
    if db.engine.dialect.name == "postgresql":
        return func.greatest(expression, 0.0)
    return func.max(expression, 0.0)


def checks_of(claim: Claim) -> list[BudgetCheck]:
    """Every budget the claim meets, the binding ones first (``budget_left``): read once per
    claim (the launch box shows them after weighing it), kept with it."""
    if KIND not in claim.known:
        claim.known[KIND] = _checks_of(claim)
    return claim.known[KIND]


def _checks_of(claim: Claim) -> list[BudgetCheck]:
    hours = lease_hours(claim.template_slug, claim.group_name, claim.lease_minutes)
    return budget_left(
        claim.user, claim.group_name, claim.charge, hours, utcnow(), committed=committed_hours()
    )


def refusal_sentence(over: list[BudgetCheck], why: str | None = None) -> str:
    """The refusal of a launch over the budgets ``over`` (``why``: their sentences, joined)."""
    why = why if why is not None else "; ".join(check.sentence for check in over)
    return _("This would overrun a budget: %(why)s. Nothing was launched.", why=why)


def held(claim: Claim) -> Hold | None:
    over = [check for check in checks_of(claim) if not check.fits]
    if not over:
        return None
    why = "; ".join(check.sentence for check in over)  # each told in words once
    sentence = refusal_sentence(over, why)
    line = _renewal_line(claim, over)
    if line is None:
        alone = _("No budget it overruns renews before the longest wait in line.")
        return Hold(KIND, sentence, _error(over), cannot_wait=f"{sentence} {alone}")
    return Hold(
        KIND,
        sentence,
        _error(over),
        line=line,
        reason=why,
        joined=wording.JOINED,
    )


def _error(over: list[BudgetCheck]) -> type[OverBudget]:
    """OverBudget for ``over``, raised with the hold's sentence: a hold names its error by
    what it calls with the sentence, and scripts need the numbers of these budgets."""

    class Overrun(OverBudget):
        def __init__(self, message: str) -> None:
            super().__init__(over)
            self.message = message

    return Overrun


def _renewal_line(claim: Claim, over: list[BudgetCheck]) -> Line | None:
    """The line to wait in for the renewal, or None when it may not wait (see the module)."""
    if not current_app.config.get("LINE_ENABLED"):
        return None
    latest = utcnow() + settings.max_wait()
    for check in over:
        if check.renews_on is None or check.needed > check.budget + 1e-9:
            return None
        if datetime.combine(check.renews_on, datetime.min.time()) > latest:
            return None
    first = over[0]
    subject = first.subject if first.scope == GROUP else str(claim.user.id)
    resource = "cores" if first.resource == CORE_HOURS else "gpus"
    return Line(GROUP if first.scope == GROUP else USER, subject, resource, first.model)


def extension_check(deployment: Deployment, lease: Lease, new_end: datetime, now: datetime):
    """An extend (within the policy) of ``deployment``'s ``lease`` to ``new_end`` is charged
    the hours it adds, at the deployment's rate, against the budgets of its owner and group,
    as a launch of that length would be (counted in this period, up to its renewal; what
    runs is counted to its lease's end, this lease's current end included). Raises
    OverBudget with the sentence and the numbers when it would overrun one. Never touches
    what runs: refused, the lease keeps its current end."""
    added = (new_end - max(lease.ends_at or now, now)) / timedelta(hours=1)
    if added <= 0:
        return
    checks = budget_left(
        deployment.user,
        deployment.group_name,
        deployment.charge or {},
        added,
        now,
        committed=committed_hours(),
    )
    over = [check for check in checks if not check.fits]
    if over:
        sentence = _(
            "This lease cannot be extended: it would overrun a budget: %(why)s.",
            why="; ".join(check.sentence for check in over),
        )
        raise _error(over)(sentence)
