"""Group managers: who manages a group, named by operators or by membership of another group.

A group (from LDAP, OIDC or local groups) can have managers in two ways: an operator names
them (``flask groups managers add``), or the setting ``GROUP_MANAGER_GROUPS`` says that the
members of some groups manage it (``{"physics": ["physics-pi"]}``), read at each login as
``ROLE_GROUPS`` is. What a manager may do with the group's deployments is the deployments'
access policy's to say; this module only answers who manages what.
"""

from __future__ import annotations

from flask import current_app, g, has_request_context
from sqlalchemy import String, bindparam, cast, delete, func, select
from sqlalchemy.exc import IntegrityError

from app.auth.groups import normalise_group, normalise_groups
from app.auth.models import GroupManager, User
from app.extensions import db

# Where one request keeps what it learnt of who manages what (read once per request).
_CACHE = "_managed_groups"
# The groups operators named someone a manager of: asked on most pages, so built once (it
# holds no value; the person is bound at each reading) and read from the table as plain values.
_MANAGERS = GroupManager.__table__
_NAMED = select(_MANAGERS.c.group_name).where(_MANAGERS.c.user_id == bindparam("user_id"))
# The name of how many groups the person was named a manager of, when a feature has it read
# with the login check (``app.auth.logins.LoginReading``, with ``named_with_login``): the
# navigation bar asks on every page whether its person manages any group, and most manage
# none, which the count then says without a query of its own.
NAMED_READING = "groups_named_manager"


def named_with_login(user_id_column):
    """How many groups the person was named a manager of, as the login check reads it."""
    return (
        select(func.count(_MANAGERS.c.id))
        .where(_MANAGERS.c.user_id == user_id_column)
        .scalar_subquery()
    )


def groups_managed_by_membership(groups: list[str], mapping: dict[str, list[str]]) -> list[str]:
    """The groups that membership of ``groups`` makes one a manager of, under ``mapping``
    (a group -> the groups whose members manage it; names written either way)."""
    member_of = set(normalise_groups(groups))
    return normalise_groups(
        managed for managed, by in (mapping or {}).items() if member_of & set(normalise_groups(by))
    )


def refresh_membership(user: User) -> None:
    """Set what ``user`` manages by membership from their groups and the setting (the caller
    commits): at each login and whenever an operator changes a local account's groups."""
    user.managed_by_membership = groups_managed_by_membership(
        user.groups or [], current_app.config["GROUP_MANAGER_GROUPS"]
    )


def managed_groups(user: User) -> frozenset[str]:
    """Every group ``user`` manages, named or by membership (read once per request)."""
    if user is None or not getattr(user, "id", None):
        return frozenset()
    cache = g.setdefault(_CACHE, {}) if has_request_context() else {}
    if user.id not in cache:
        by_membership = user.managed_by_membership or ()
        if _named_with_login(user) == 0:
            named = ()
        else:
            named = db.session.scalars(_NAMED, {"user_id": user.id})
        cache[user.id] = frozenset([*named, *by_membership])
    return cache[user.id]


def _named_with_login(user: User) -> int | None:
    """How many groups ``user`` was named a manager of, when the login check of this request
    read it for them (``NAMED_READING``); None when it did not, or no longer stands."""
    from app.auth.logins import loaded_user, login_reading

    person = loaded_user()
    if person is None or getattr(person, "id", None) != user.id:
        return None
    return login_reading(NAMED_READING)


def manages(user: User, group: str | None) -> bool:
    """Whether ``user`` manages ``group`` (no group: nobody does)."""
    return bool(group) and group in managed_groups(user)


def forget_cached(user: User | None = None) -> None:
    """Drop what this request remembered (after naming or removing a manager)."""
    if has_request_context():
        g.pop(_CACHE, None)


def name_manager(group: str, user: User, named_by: str) -> bool:
    """Name ``user`` a manager of ``group``, and commit; False if they already were."""
    group = normalise_group(group)
    if not group:
        raise ValueError("a group name is needed")
    exists = db.session.scalar(
        select(GroupManager.id).where(
            GroupManager.group_name == group, GroupManager.user_id == user.id
        )
    )
    if exists is not None:
        return False
    db.session.add(GroupManager(group_name=group, user_id=user.id, named_by=named_by))
    try:
        db.session.commit()
    except IntegrityError:  # named at the same moment by another command
        db.session.rollback()
        return False
    forget_cached()
    return True


def remove_manager(group: str, user: User) -> bool:
    """Stop ``user`` being a named manager of ``group``, and commit; False if they were not.
    Managers by membership stay so while their groups and the setting say so."""
    removed = db.session.execute(
        delete(GroupManager).where(
            GroupManager.group_name == normalise_group(group), GroupManager.user_id == user.id
        )
    ).rowcount
    db.session.commit()
    forget_cached()
    return bool(removed)


def named_managers(group: str | None = None) -> list[GroupManager]:
    """The managers operators named (of ``group``, or of every group), by group and name."""
    query = select(GroupManager).join(User, User.id == GroupManager.user_id)
    if group is not None:
        query = query.where(GroupManager.group_name == normalise_group(group))
    return list(db.session.scalars(query.order_by(GroupManager.group_name, User.username)))


def managers_by_membership(group: str) -> list[User]:
    """The people whose groups made them managers of ``group`` at their last login."""
    group = normalise_group(group)
    pattern = '%"' + group.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + '"%'
    found = db.session.scalars(
        select(User)
        .where(cast(User.managed_by_membership, String).like(pattern, escape="\\"))
        .order_by(User.username)
    )
    return [user for user in found if group in (user.managed_by_membership or ())]


def people_named(username: str, provider: str | None = None) -> list[User]:
    """The accounts called ``username`` (of ``provider`` when given): who "name bob a
    manager" means, from the command line or the admins' page."""
    query = select(User).where(User.username == username)
    if provider:
        query = query.where(User.provider == provider)
    return list(db.session.scalars(query.order_by(User.provider)))


def groups_managed_by(users: list[User]) -> dict[int, list[tuple[str, str | None]]]:
    """What each of ``users`` manages, in one query: (group, who named them) by group name,
    who named them None for a group managed by membership."""
    found: dict[int, dict[str, str | None]] = {user.id: {} for user in users}
    for user in users:
        for group in user.managed_by_membership or ():
            found[user.id][group] = None
    if found:
        named = db.session.execute(
            select(GroupManager.user_id, GroupManager.group_name, GroupManager.named_by).where(
                GroupManager.user_id.in_(found)
            )
        )
        for user_id, group, named_by in named:
            found[user_id][group] = named_by or ""
    return {user_id: sorted(groups.items()) for user_id, groups in found.items()}


def managers_of(group: str) -> list[User]:
    """Everyone who manages ``group``, named or by membership, each once."""
    people = {row.user.id: row.user for row in named_managers(group)}
    people.update((user.id, user) for user in managers_by_membership(group))
    return sorted(people.values(), key=lambda user: (user.username, user.provider))
