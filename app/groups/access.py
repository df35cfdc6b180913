"""Who sees which group's page: its managers (named or by membership), operators and admins.
Anyone else is answered as if the group did not exist (404), as a deployment's page answers
those who may not see it."""

from __future__ import annotations

from flask_babel import gettext as _
from sqlalchemy import select, union

from app.auth.groups import normalise_group
from app.auth.managers import managed_groups, manages
from app.auth.models import GroupManager, User
from app.deployments.models import Deployment
from app.errors import NotFound
from app.extensions import db
from app.quotas.models import GROUP, MEMBER, QuotaLimit
from app.quotas.usage_models import UsageBudget


def oversees_every_group(person) -> bool:
    return bool(person.is_operator or person.is_admin)


def may_see_group(person, group: str) -> bool:
    """Whether ``person`` may see the page of ``group`` (a name in the portal's form)."""
    return bool(group) and (oversees_every_group(person) or manages(person, group))


def group_for(person, typed: str) -> str:
    """The group ``typed`` names, in the portal's form, if ``person`` may see its page.

    Raises NotFound otherwise (also for a name that is no group at all).
    """
    group = normalise_group(typed)
    if not may_see_group(person, group):
        raise NotFound(_("There is no such group among those you manage."))
    return group


def listed_groups(person) -> list[str]:
    """The groups the list shows ``person``: those they manage; for operators and admins,
    every group that has a manager, a limit, a budget or a deployment charged to it.

    Raises NotFound for someone who manages none and oversees nothing.
    """
    mine = set(managed_groups(person))
    if not oversees_every_group(person):
        if not mine:
            raise NotFound(_("You manage no group."))
        return sorted(mine)
    named = select(GroupManager.group_name)
    limited = select(QuotaLimit.subject).where(QuotaLimit.scope.in_([MEMBER, GROUP]))
    budgeted = select(UsageBudget.subject).where(UsageBudget.scope == GROUP)
    charged = select(Deployment.group_name).where(Deployment.group_name.is_not(None))
    names = set(db.session.scalars(union(named, limited, budgeted, charged)))
    for managed in db.session.scalars(
        select(User.managed_by_membership).where(User.managed_by_membership.is_not(None))
    ):
        names.update(name for name in managed or () if isinstance(name, str))
    return sorted(name for name in names | mine if name)
