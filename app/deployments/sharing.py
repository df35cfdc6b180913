"""Sharing a deployment: its owner lets named people, or a group they are in, see it (viewer)
or also steer it (co-owner); ``access`` says what each may then do.

Each change locks the deployment's row (where the database has row locks) and reads the share
as it is, so that concurrent changes on several hosts are each answered by the state they
changed; each is on the timeline with who made it, and committed. A shared deployment stays
its owner's: quotas and budgets keep charging the owner and the owner's group.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from flask_babel import gettext as _
from sqlalchemy import bindparam, delete, select
from sqlalchemy.exc import IntegrityError

from app.auth.groups import normalise_group
from app.auth.models import User
from app.deployments import access
from app.deployments.access import SHARE_ROLES, Action
from app.deployments.models import Deployment, DeploymentShare
from app.deployments.timeline import actor_source, record_event
from app.errors import PortalError
from app.extensions import db
from app.locks import lock_rows

KINDS = ("user", "group")
SHARED, UNSHARED = "shared", "unshared"


class ShareRefused(PortalError):
    """A share that cannot be made as asked; the message says why."""

    status_code = 400


@dataclass(frozen=True)
class Share:
    """One share as pages and the API show it."""

    kind: str
    name: str
    role: str
    granted_by: str | None = None
    granted_at: object = None


@cache
def _shares_statement():
    # Built once and kept (the deployment page asks at each showing). The tables' columns
    # rather than records: a share is only shown from here, and plain rows read through the
    # session's connection cost a fraction of records. Nothing flushes the session first: the
    # changes here flush before they read the shares back.
    share, user = DeploymentShare.__table__.c, User.__table__.c
    return (
        select(share.kind, share.name, share.role, user.username, share.granted_at)
        .select_from(
            DeploymentShare.__table__.outerjoin(User.__table__, user.id == share.granted_by_id)
        )
        .where(share.deployment_id == bindparam("deployment_id"))
        .order_by(share.kind.desc(), share.name)
    )


def shares_of(deployment: Deployment) -> list[Share]:
    """Who ``deployment`` is shared with: people first, then groups, each by name."""
    rows = db.session.connection().execute(_shares_statement(), {"deployment_id": deployment.id})
    return [Share(*row) for row in rows]


def _person(name: str) -> User:
    found = list(db.session.scalars(select(User).where(User.username == name).limit(2)))
    if not found:
        raise ShareRefused(_("The portal knows nobody named %(name)s.", name=name), "name")
    if len(found) > 1:
        raise ShareRefused(
            _("Several accounts are named %(name)s; ask an operator which is meant.", name=name),
            "name",
        )
    return found[0]


def _whom(actor: User, deployment: Deployment, kind: str, name: str) -> tuple[str, int | None]:
    """The share's name in the portal's form and the person's id; raises ShareRefused."""
    if kind not in KINDS:
        raise ShareRefused(_("Share with a person or a group."), "kind")
    name = " ".join(str(name or "").split())
    if kind == "group":
        group = normalise_group(name)
        if not group:
            raise ShareRefused(_("Name the group to share with."), "name")
        owner_groups = set(deployment.user.groups or ())
        if group not in owner_groups and not (actor.is_operator or actor.is_admin):
            raise ShareRefused(
                _("You can share with the groups you are in; %(group)s is not one.", group=group),
                "name",
            )
        return group, None
    if not name:
        raise ShareRefused(_("Name the person to share with."), "name")
    person = _person(name)
    if person.id == deployment.user_id:
        raise ShareRefused(_("%(name)s owns this deployment already.", name=name), "name")
    return person.username, person.id


def _locked(deployment: Deployment) -> None:
    """Hold the deployment's row until commit: share changes on it follow one another."""
    lock_rows(select(Deployment.id).where(Deployment.id == deployment.id))


def share(
    actor: User, deployment: Deployment, kind: str, name: str, role: str
) -> tuple[bool, list[Share]]:
    """Share ``deployment`` with a person or group as ``role``, and commit. Answers whether
    the share is new (False: it was there, its role now ``role``) and every share as this
    change left them (read under the lock, before another change can follow). Raises NotFound
    if ``actor`` may not change its shares, ShareRefused for whom it cannot be shared with."""
    access.check(actor, deployment, Action.SHARE)
    if role not in SHARE_ROLES:
        raise ShareRefused(_("A share is for a viewer or a co-owner."), "role")
    name, user_id = _whom(actor, deployment, kind, name)
    for attempt in (1, 2):
        _locked(deployment)
        row = db.session.scalar(
            select(DeploymentShare)
            .where(
                DeploymentShare.deployment_id == deployment.id,
                DeploymentShare.kind == kind,
                DeploymentShare.name == name,
            )
            .execution_options(populate_existing=True)
        )
        previous = row.role if row is not None else None
        if row is None:
            row = DeploymentShare(deployment_id=deployment.id, kind=kind, name=name)
            db.session.add(row)
        row.user_id, row.role, row.granted_by_id = user_id, role, actor.id
        if previous != role:
            _record(actor, deployment, SHARED, kind, name, role, previous)
        try:
            db.session.flush()
            after = shares_of(deployment)
            db.session.commit()
        except IntegrityError:
            # Made a moment ago by another request (where rows are not locked): change it.
            db.session.rollback()
            if attempt == 2:
                raise
            continue
        break
    access.forget_cached()
    return previous is None, after


def unshare(actor: User, deployment: Deployment, kind: str, name: str) -> tuple[bool, list[Share]]:
    """Stop sharing ``deployment`` with a person or group, and commit; answers whether it was
    shared with them, and the shares as this change left them. Holds from the next request
    on. Raises NotFound as ``share`` does."""
    access.check(actor, deployment, Action.SHARE)
    name = normalise_group(name) if kind == "group" else " ".join(str(name or "").split())
    _locked(deployment)
    previous = db.session.scalar(
        select(DeploymentShare.role).where(
            DeploymentShare.deployment_id == deployment.id,
            DeploymentShare.kind == kind,
            DeploymentShare.name == name,
        )
    )
    removed = db.session.execute(
        delete(DeploymentShare).where(
            DeploymentShare.deployment_id == deployment.id,
            DeploymentShare.kind == kind,
            DeploymentShare.name == name,
        )
    ).rowcount
    if removed:
        _record(actor, deployment, UNSHARED, kind, name, None, previous)
    db.session.flush()
    after = shares_of(deployment)
    db.session.commit()
    access.forget_cached()
    return bool(removed), after


def _record(actor, deployment, what, kind, name, role, previous) -> None:
    record_event(
        deployment,
        None,
        source=actor_source(actor, deployment),
        actor=actor,
        kind=what,
        details={"kind": kind, "name": name, "role": role, "previous_role": previous},
    )


def co_owners(deployment: Deployment) -> list[User]:
    """The active people who co-own ``deployment``: named ones, and the members of the groups
    it is shared with as co-owner (read as of their last login)."""
    rows = list(
        db.session.execute(
            select(DeploymentShare.kind, DeploymentShare.name, DeploymentShare.user_id).where(
                DeploymentShare.deployment_id == deployment.id,
                DeploymentShare.role == access.CO_OWNER,
            )
        )
    )
    ids = {user_id for kind, _name, user_id in rows if kind == "user" and user_id}
    people = {
        user.id: user
        for user in db.session.scalars(select(User).where(User.id.in_(ids), User.active))
    }
    groups = {name for kind, name, _id in rows if kind == "group"}
    if groups:
        for user in db.session.scalars(select(User).where(User.active)):
            if groups & set(user.groups or ()):
                people.setdefault(user.id, user)
    people.pop(deployment.user_id, None)
    return sorted(people.values(), key=lambda user: user.username)
