"""One member's limits and budgets inside a group's own: what a group's managers (and the
operators) give one person of the group, never above the group's pool and budgets.

They are the person-limit and person-budget rows of scope ``in-group`` (``models.IN_GROUP``,
subject ``member_subject``): recorded as every change of limits is (``editing.set_limits``:
who, when, before and after, why) and as every budget is (``budgets.set_budget``: who and
why). A launch by that person charged to the group must fit them besides the group's pool
(``operations.assess_launch``) and budgets (``budgets.budget_left``). Unset, the person is
bound only by their own limits and the group's.

"Never above the group's own": a member's limit of a resource the group's pool limits may not
pass the pool's figure (a GPU model's, when the pool sets none for the model, not the pool's
GPUs in all), nor be "unlimited"; a member's budget may not pass the group's budget of the
same hours (for one model's GPU-hours, the group's of that model, else of any model). Only
what changes is checked: lowering the pool later leaves what was set as it was.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.managers import manages
from app.auth.models import User
from app.extensions import db
from app.hours_text import hours_text
from app.quotas.amounts import amount_phrase
from app.quotas.budgets import model_of, resource_key, set_budget
from app.quotas.editing import apply_changes, set_limits
from app.quotas.errors import InvalidLimit
from app.quotas.limits import Limits, combine, rows_for
from app.quotas.models import GROUP, IN_GROUP, LIMIT_KEYS, member_subject
from app.quotas.usage_models import UsageBudget


def may_set(actor: User | None, group: str) -> bool:
    """Whether ``actor`` may set the limits and budgets of ``group``'s members: its managers,
    and the operators (admins are operators)."""
    if actor is None or not getattr(actor, "id", None):
        return False
    return actor.is_operator or manages(actor, group)


def member_named(group: str, username: str) -> User | None:
    """The member of ``group`` called ``username`` (the first account, should two providers
    give the same name), or None when no such person is in the group."""
    found = db.session.scalars(select(User).where(User.username == username).order_by(User.id))
    return next((user for user in found if group in (user.groups or ())), None)


def stored_limits(user: User, group: str, stored: dict | None = None) -> dict:
    """The limits set for ``user`` inside ``group`` (empty: none); ``stored``: the limit rows
    already read (``rows_for``), holding this key when it has a row, else it is read here."""
    key = (IN_GROUP, member_subject(user.id, group))
    return (rows_for([key]) if stored is None else stored).get(key, {})


def limits_in_group(user: User, group: str, stored: dict | None = None) -> Limits:
    """The limits binding ``user``'s deployments charged to ``group`` besides the pool's
    (``stored``: as ``stored_limits`` takes it)."""
    return combine(
        stored_limits(user, group, stored),
        [],
        None,
        own_label=_("your limit in group %(group)s", group=group),
    )


def group_limits(group: str) -> dict:
    """The group pool's own limits as stored (a key absent: not limited)."""
    return rows_for([(GROUP, group)]).get((GROUP, group), {})


def _above(value: float | None, ceiling: float | None) -> bool:
    if ceiling is None:
        return False
    return value is None or value > ceiling + 1e-9


def _shown(key: str, value: float | None, model: str | None = None) -> str:
    if value is None:
        return _("unlimited")
    return amount_phrase(key, value, model)


def over_the_group(group: str, old: Mapping, new: Mapping) -> list[InvalidLimit]:
    """What in ``new`` (a member's limits, ``old`` before) is above ``group``'s own pool,
    each in words naming the group's figure, with the form field it came from."""
    pool = group_limits(group)
    problems = []
    for key in LIMIT_KEYS:
        if key not in new or (key in old and old[key] == new[key]) or key not in pool:
            continue
        if _above(new[key], pool[key]):
            problems.append(
                InvalidLimit(
                    _(
                        "Group %(group)s's own limit is %(limit)s; a member's cannot be more "
                        "(got %(value)s).",
                        group=group,
                        limit=_shown(key, pool[key]),
                        value=_shown(key, new[key]),
                    ),
                    field=key,  # the limits form names its fields by the keys
                )
            )
    pool_models = pool.get("gpu_models") or {}
    old_models = old.get("gpu_models") or {}
    for model, value in (new.get("gpu_models") or {}).items():
        if model in old_models and old_models[model] == value:
            continue
        if model in pool_models:
            ceiling, named = pool_models[model], model
        elif "gpus" in pool:
            ceiling, named = pool["gpus"], None
        else:
            continue
        if _above(value, ceiling):
            problems.append(
                InvalidLimit(
                    _(
                        "%(model)s GPUs: group %(group)s's own limit is %(limit)s; a "
                        "member's cannot be more (got %(value)s).",
                        model=model,
                        group=group,
                        limit=_shown("gpus", ceiling, named),
                        value=_shown("gpus", value, model),
                    ),
                    field="gpu_models",
                )
            )
    return problems


def check_limits(group: str, member: User, changes: Mapping) -> tuple[dict, list[InvalidLimit]]:
    """The member's limits once ``changes`` apply, and what in them is above the group's."""
    old = stored_limits(member, group)
    new = apply_changes(old, changes)
    return new, over_the_group(group, old, new)


def set_member_limits(actor: User, group: str, member: User, changes: Mapping, reason: str):
    """Apply ``changes`` to ``member``'s limits inside ``group``, recorded with who and why
    (``editing.set_limits``); commits. Returns the QuotaChange (None: nothing changed).

    Raises InvalidLimit (with its field) for a value above the group's own, or a missing
    reason. Whether ``actor`` may is asked before (``may_set``)."""
    _new, problems = check_limits(group, member, changes)
    if problems:
        raise problems[0]
    return set_limits(actor, IN_GROUP, member_subject(member.id, group), changes, reason)


def group_budget_for(group: str, resource: str) -> UsageBudget | None:
    """The group's budget a member's budget of ``resource`` may not pass: the same hours, or
    for one model's GPU-hours without a group budget of that model, GPU-hours of any model."""
    budgets = {
        budget.resource: budget
        for budget in db.session.scalars(
            select(UsageBudget).where(UsageBudget.scope == GROUP, UsageBudget.subject == group)
        )
    }
    if resource in budgets:
        return budgets[resource]
    if model_of(resource) is not None:
        return budgets.get(resource_key(None))
    return None


def set_member_budget(
    actor: User,
    group: str,
    member: User,
    resource: str,
    hours: float | None,
    period_days: int,
    reason: str,
) -> UsageBudget | None:
    """Set (``hours`` a number) or remove (None) ``member``'s budget of ``resource`` inside
    ``group``, with who and why; commits. Raises InvalidLimit (field ``hours``) when it is
    above the group's own budget, or for a negative amount or a missing reason."""
    ceiling = group_budget_for(group, resource) if hours is not None else None
    if ceiling is not None and hours > ceiling.hours + 1e-9:
        raise InvalidLimit(
            _(
                "Group %(group)s's own budget is %(budget)s; a member's cannot be more "
                "(got %(hours)s).",
                group=group,
                budget=hours_text(ceiling.hours, ceiling.resource, model_of(ceiling.resource)),
                hours=hours_text(hours, resource, model_of(resource)),
            ),
            field="hours",
        )
    subject = member_subject(member.id, group)
    return set_budget(actor, IN_GROUP, subject, resource, hours, period_days, reason)
