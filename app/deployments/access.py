"""Who may do what to a deployment: the one policy every page, partial, API route and command
asks.

A person stands in one or more relations to a deployment: its ``owner``; a ``co-owner`` or a
``viewer`` it was shared with (by name or through a group they are in); a ``manager`` of the
group it is charged to; or an ``operator`` or ``admin`` of the portal. Each relation brings
rights (``RIGHTS``); a person has the rights of all their relations. Anyone without the right
is answered as if the deployment did not exist (NotFound, a 404), as before sharing: nobody
learns which ids exist, or that someone else's deployment is there.

The answer is read from the database at each request (shares are never cached across
requests), so that a revoked share holds at the very next request: a page that polls, an API
token, ``rcp``.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from flask import g, has_request_context
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, literal, or_, select, union_all

from app.auth.managers import manages
from app.auth.models import GroupManager, User
from app.deployments.models import Deployment, DeploymentShare
from app.errors import NotFound
from app.extensions import db


class Action(StrEnum):
    VIEW = "view"  # its page, status, access details, outputs, timeline, log; never secrets
    REVEAL = "reveal"  # its generated secrets and secret outputs (each reveal recorded)
    EXTEND = "extend"  # its lease, within the policy
    EXTEND_PAST_POLICY = "extend-past-policy"  # its lease, past the policy, with a reason
    DELETE = "delete"  # delete it, reset a stuck delete, take it out of the line
    RELAUNCH = "relaunch"  # launch its template with its settings again, as oneself
    SHARE = "share"  # change who it is shared with
    TAKE_OVER = "take-over"  # become its owner, once its owner's account is disabled
    # Move it in the line or take it out, saying why (its owner is told): what operators do
    # to every waiting request, and a group's managers to those charged to their group.
    STEER = "steer"


OWNER, CO_OWNER, VIEWER, MANAGER, OPERATOR, ADMIN = (
    "owner",
    "co-owner",
    "viewer",
    "manager",
    "operator",
    "admin",
)
# The roles a share gives, weakest first.
SHARE_ROLES = (VIEWER, CO_OWNER)
# Why someone sees a deployment, closest relation first: what they are to the deployment,
# then what they are to the portal (the API's ``access``).
RELATIONS = (OWNER, CO_OWNER, MANAGER, VIEWER, ADMIN, OPERATOR)

_ALL_BUT_TAKING = frozenset(Action) - {Action.TAKE_OVER}
RIGHTS: dict[str, frozenset[Action]] = {
    # An owner leaves the line when they like, but does not move their own request ahead.
    OWNER: _ALL_BUT_TAKING - {Action.EXTEND_PAST_POLICY, Action.STEER},
    CO_OWNER: frozenset(
        {Action.VIEW, Action.REVEAL, Action.EXTEND, Action.DELETE, Action.RELAUNCH}
    ),
    VIEWER: frozenset({Action.VIEW}),
    MANAGER: frozenset({Action.VIEW, Action.EXTEND, Action.DELETE, Action.STEER}),
    OPERATOR: frozenset({Action.EXTEND_PAST_POLICY, Action.SHARE, Action.STEER}),
    # Admins see and steer everything, but a deployment's secrets stay its owners'.
    ADMIN: _ALL_BUT_TAKING - {Action.REVEAL},
}
# The relations in people's words (the mark on a row, the page's "you see it as").
ACCESS_WORDS = {
    OWNER: _l("owner"),
    CO_OWNER: _l("co-owner"),
    VIEWER: _l("viewer"),
    MANAGER: _l("group manager"),
    OPERATOR: _l("operator"),
    ADMIN: _l("admin"),
}
# Who may take a deployment over once its owner's account is disabled.
TAKERS = frozenset({CO_OWNER, MANAGER, ADMIN})

_CACHE = "_deployment_relations"


def _share_roles(user: User, deployment_ids: list[int]) -> dict[int, str]:
    """The strongest role each of ``deployment_ids`` is shared with ``user`` in, by name or
    through one of their groups (one query)."""
    whom = DeploymentShare.user_id == user.id
    if user.groups:
        whom = or_(
            whom, (DeploymentShare.kind == "group") & DeploymentShare.name.in_(list(user.groups))
        )
    found: dict[int, str] = {}
    rows = db.session.execute(
        select(DeploymentShare.deployment_id, DeploymentShare.role).where(
            DeploymentShare.deployment_id.in_(deployment_ids), whom
        )
    )
    for deployment_id, role in rows:
        if found.get(deployment_id) != CO_OWNER:
            found[deployment_id] = role
    return found


def _relations(
    user: User, deployment: Deployment, share_role: str | None, manager: bool | None = None
) -> tuple[str, ...]:
    found = {OWNER} if deployment.user_id == user.id else set()
    if share_role in SHARE_ROLES and OWNER not in found:
        found.add(share_role)
    if manager is None:
        manager = manages(user, deployment.group_name)
    if OWNER not in found and manager:
        found.add(MANAGER)
    if user.is_admin:
        found.add(ADMIN)
    if user.is_operator:
        found.add(OPERATOR)
    return tuple(relation for relation in RELATIONS if relation in found)


def _cache() -> dict:
    return g.setdefault(_CACHE, {}) if has_request_context() else {}


def relations(user: User | None, deployment: Deployment) -> tuple[str, ...]:
    """Every relation ``user`` stands in to ``deployment``, in the order of ``RELATIONS``.

    Read once per request and deployment (a share changed in this request forgets it).
    """
    if user is None or not getattr(user, "id", None):
        return ()
    cache, key = _cache(), (user.id, deployment.id)
    if key not in cache:
        if deployment.user_id == user.id:
            cache[key] = _relations(user, deployment, None, manager=False)
        else:
            cache[key] = _relations(user, deployment, *_share_and_manager(user, deployment))
    return cache[key]


def _share_and_manager(user: User, deployment: Deployment) -> tuple[str | None, bool]:
    """The role ``deployment`` is shared with ``user`` in, and whether they manage its group:
    one round trip to the database (a request asks it once per deployment)."""
    group = deployment.group_name
    values = {"deployment_id": deployment.id, "user_id": user.id}
    if user.groups:
        values["groups"] = list(user.groups)
    if group:
        values["group"] = group
    said = set(
        db.session.scalars(_share_and_manager_statement(bool(user.groups), bool(group)), values)
    )
    role = CO_OWNER if CO_OWNER in said else VIEWER if VIEWER in said else None
    manager = MANAGER in said or bool(group and group in (user.managed_by_membership or ()))
    return role, manager


@cache
def _share_and_manager_statement(in_groups: bool, charged: bool):
    """The statement ``_share_and_manager`` sends, built once for each of its four shapes
    (whether the person is in groups, whether the deployment is charged to one): the values
    go in as parameters."""
    whom = DeploymentShare.user_id == bindparam("user_id")
    if in_groups:
        whom = or_(
            whom,
            (DeploymentShare.kind == "group")
            & DeploymentShare.name.in_(bindparam("groups", expanding=True)),
        )
    shared = select(DeploymentShare.role.label("said")).where(
        DeploymentShare.deployment_id == bindparam("deployment_id"), whom
    )
    if not charged:
        return shared
    managed = select(literal(MANAGER).label("said")).where(
        GroupManager.user_id == bindparam("user_id"), GroupManager.group_name == bindparam("group")
    )
    return union_all(shared, managed)


def marks(user: User, deployments: list[Deployment]) -> dict[int, str]:
    """Why ``user`` sees each of ``deployments`` (the list's mark on rows not theirs), read
    with one query for them all."""
    if not deployments:
        return {}
    roles = _share_roles(user, [d.id for d in deployments])
    cache, found = _cache(), {}
    for deployment in deployments:
        cache[(user.id, deployment.id)] = known = _relations(
            user, deployment, roles.get(deployment.id)
        )
        if known:
            found[deployment.id] = known[0]
    return found


def forget_cached() -> None:
    """Drop what this request read of people's relations (after a share changes)."""
    if has_request_context():
        g.pop(_CACHE, None)


def why(user: User | None, deployment: Deployment) -> str | None:
    """Why ``user`` sees ``deployment`` (the closest relation), None if they have none."""
    found = relations(user, deployment)
    return found[0] if found else None


def rights(user: User | None, deployment: Deployment) -> frozenset[Action]:
    """Everything ``user`` may do to ``deployment``."""
    found = relations(user, deployment)
    allowed = frozenset().union(*(RIGHTS[relation] for relation in found))
    owner = deployment.user
    if TAKERS & set(found) and OWNER not in found and owner is not None and not owner.active:
        allowed |= {Action.TAKE_OVER}
    return allowed


def may(user: User | None, deployment: Deployment, action: Action) -> bool:
    """Whether ``user`` may do ``action`` to ``deployment`` (a deleted one: nobody)."""
    if deployment.deleted:
        return False
    return action in rights(user, deployment)


def not_found() -> NotFound:
    return NotFound(_("There is no such deployment among yours."))


def check(user: User | None, deployment: Deployment | None, action: Action) -> Deployment:
    """``deployment`` if ``user`` may do ``action`` to it; raises NotFound otherwise (also
    for None and for deleted ones)."""
    if deployment is None or not may(user, deployment, action):
        raise not_found()
    return deployment


def deployment_for(user: User | None, deployment_id: int, action: Action) -> Deployment:
    """Deployment ``deployment_id`` if ``user`` may do ``action`` to it; raises NotFound."""
    return check(user, db.session.get(Deployment, deployment_id), action)


def shared_with_condition(user: User):
    """The database's condition for "shared with ``user``" (by name or through a group)."""
    whom = DeploymentShare.user_id == user.id
    if user.groups:
        whom = or_(
            whom, (DeploymentShare.kind == "group") & DeploymentShare.name.in_(list(user.groups))
        )
    shared = select(DeploymentShare.deployment_id).where(whom)
    return Deployment.id.in_(shared) & (Deployment.user_id != user.id)
