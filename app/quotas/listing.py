"""The operators' list of users with their usage against their limits: searched, sorted and
paged in SQL so that it stays fast with tens of thousands of users."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l
from sqlalchemy import func, or_, select

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.fit import Bar
from app.quotas.holding import holding_clause
from app.quotas.limits import Limits, limits_for_many
from app.quotas.models import GROUP, MEMBER, QuotaCharge, QuotaLimit

SORTS = {
    "name": _l("Name"),
    "gpus": _l("GPUs held"),
    "cores": _l("Cores held"),
    "memory": _l("Memory held"),
    "deployments": _l("Deployments"),
}


@dataclass
class UserRow:
    """One user on the list: who, what they hold, and bars against their limits."""

    user: User
    limits: Limits
    bars: list[Bar]


def _with_usage(held):
    return select(
        User, held.c.deployments, held.c.cores, held.c.gpus, held.c.memory, held.c.disk
    ).outerjoin(held, held.c.user_id == User.id)


def _held_by_user(user_ids: list[int] | None = None):
    condition = [holding_clause()]
    if user_ids is not None:
        condition.append(Deployment.user_id.in_(user_ids))
    return (
        select(
            Deployment.user_id.label("user_id"),
            func.count(Deployment.id).label("deployments"),
            func.sum(QuotaCharge.cores).label("cores"),
            func.sum(QuotaCharge.gpus).label("gpus"),
            func.sum(QuotaCharge.memory).label("memory"),
            func.sum(QuotaCharge.disk).label("disk"),
        )
        .select_from(Deployment)
        .outerjoin(QuotaCharge, QuotaCharge.deployment_id == Deployment.id)
        .where(*condition)
        .group_by(Deployment.user_id)
        .subquery()
    )


def users_page(query: str = "", sort: str = "name", page: int = 1, size: int = 50):
    """The users matching ``query`` (in username, name or e-mail), sorted by ``sort`` (one of
    SORTS; usage sorts put the heaviest first), page ``page`` of ``size``.

    Returns (rows, total matching).
    """
    matching = select(User.id)
    for word in query.split():
        pattern = f"%{word.lower()}%"
        matching = matching.where(
            or_(
                func.lower(User.username).like(pattern),
                func.lower(User.display_name).like(pattern),
                func.lower(User.email).like(pattern),
            )
        )
    total = db.session.scalar(select(func.count()).select_from(matching.subquery()))
    offset = (max(page, 1) - 1) * size
    if sort not in SORTS or sort == "name":
        # Sorted by name, the page is known before any usage is summed: sum for it alone.
        page_ids = matching.order_by(User.username, User.id).limit(size).offset(offset)
        held = _held_by_user(db.session.scalars(page_ids).all())
        statement = _with_usage(held).where(User.id.in_(page_ids)).order_by(User.username, User.id)
    else:
        held = _held_by_user()
        statement = (
            _with_usage(held)
            .where(User.id.in_(matching))
            .order_by(func.coalesce(held.c[sort], 0).desc(), User.username, User.id)
            .limit(size)
            .offset(offset)
        )
    found = db.session.execute(statement).all()
    limits = limits_for_many(row[0] for row in found)
    rows = []
    for user, deployments, cores, gpus, memory, disk in found:
        used = {
            "deployments": deployments or 0,
            "cores": cores or 0,
            "gpus": gpus or 0,
            "memory": memory or 0,
            "disk": disk or 0,
        }
        bars = [
            Bar(key, label, used[key], 0, limits[user.id].get(key))
            for key, label in (
                ("gpus", _l("GPUs")),
                ("cores", _l("Cores")),
                ("memory", _l("Memory")),
                ("deployments", _l("Deployments")),
            )
        ]
        rows.append(UserRow(user, limits[user.id], bars))
    return rows, total


def known_groups(words: str = "") -> list[str]:
    """Every group an operator may look after, sorted: those with limits, those charged for a
    deployment, and those people belong to (local, LDAP and OIDC groups as last seen at login);
    ``words`` narrows them to names holding every word."""
    limited = select(QuotaLimit.subject).where(QuotaLimit.scope.in_([MEMBER, GROUP])).distinct()
    charged = select(Deployment.group_name).where(Deployment.group_name.is_not(None)).distinct()
    names = set(db.session.scalars(limited)) | set(db.session.scalars(charged))
    for groups in db.session.scalars(select(User.groups)):
        names.update(name for name in groups or () if isinstance(name, str))
    wanted = words.lower().split()
    return sorted(n for n in names if n and all(word in n.lower() for word in wanted))
