"""Naming and removing a group's managers from the admins' Users page: the same verbs as
``flask groups managers add/remove`` (``managers.name_manager``, ``managers.remove_manager``),
with what was typed checked and refused in words for the admin."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _

from app.auth import managers
from app.auth.errors import InvalidGroupName, NoSuchPerson
from app.auth.groups import normalise_group
from app.auth.models import User
from app.auth.operations import GROUP_NAME
from app.text import one_line_problem


@dataclass(frozen=True)
class ManagerChange:
    """What naming or removing did: to whom, of which group, whether anything changed, and
    whether they still manage it by membership."""

    user: User
    group: str
    changed: bool
    by_membership: bool


def change_manager(
    actor: User, group: str, username: str, provider: str | None, *, naming: bool
) -> ManagerChange:
    """Name (``naming``) or remove the manager ``username`` of ``group``, recording that
    ``actor`` named them; commits. Raises InvalidGroupName for a missing or impossible group
    name, NoSuchPerson when no account, or several, answer to ``username``."""
    group = _group(group)
    user = _person(username, provider)
    if naming:
        changed = managers.name_manager(group, user, named_by=actor.username)
    else:
        changed = managers.remove_manager(group, user)
    by_membership = group in (user.managed_by_membership or ())
    return ManagerChange(user, group, changed, by_membership)


def _group(name: str) -> str:
    if problem := one_line_problem(name, _("Group")):
        raise InvalidGroupName(problem, "group")
    group = normalise_group(name or "")
    if not group:
        raise InvalidGroupName(_("Type the name of the group."), "group")
    if not GROUP_NAME.fullmatch(group):
        raise InvalidGroupName(
            _(
                "'%(name)s' is not a group name: use up to 100 letters, digits and "
                ". _ : / @ + -, starting with a letter or digit (for example gpu-users).",
                name=group,
            ),
            "group",
        )
    return group


def _person(username: str, provider: str | None) -> User:
    username = (username or "").strip()
    if not username:
        raise NoSuchPerson(_("Type the username of the manager."), "username")
    found = managers.people_named(username, provider or None)
    if not found:
        raise NoSuchPerson(_("No user is called %(user)s.", user=username), "username")
    if len(found) > 1:
        raise NoSuchPerson(
            _(
                "Several accounts are called %(user)s: choose how theirs logs in.",
                user=username,
            ),
            "provider",
        )
    return found[0]
