"""What the Group page shows besides its members, each part read in a few queries however
large the group: its running deployments a page at a time, its requests waiting in line with
their places, its pool's limits against what it holds, and its budgets with what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from sqlalchemy import Integer, bindparam, func, select
from sqlalchemy.orm import load_only

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.lines import places
from app.lines.models import LineEntry
from app.quotas.budgets import BudgetCheck, budget_left, budgets_of, model_of
from app.quotas.editing import describe_limits
from app.quotas.fit import Assessment, assess
from app.quotas.holding import holding_clause
from app.quotas.limits import pool_limits, rows_for
from app.quotas.models import GROUP, MEMBER
from app.quotas.usage import pool_and_people
from app.quotas.usage_models import CORE_HOURS

RUNNING_SHOWN = 25
WAITING_SHOWN = 25


@dataclass
class Paged:
    """One page of a longer list: ``rows``, how many there are in all, which page."""

    rows: list
    total: int
    page: int
    size: int

    @property
    def pages(self) -> int:
        return max((self.total + self.size - 1) // self.size, 1)

    @property
    def first(self) -> int:
        return (self.page - 1) * self.size + 1 if self.total else 0

    @property
    def last(self) -> int:
        return min(self.page * self.size, self.total)


def _page_within(asked: int, total: int, size: int) -> int:
    return max(1, min(asked, max((total + size - 1) // size, 1)))


def running_deployments(
    group: str, asked: int = 1, size: int = RUNNING_SHOWN, total: int | None = None
) -> Paged:
    """Page ``asked`` of the deployments charged to ``group`` that hold resources, newest
    first, each as (deployment, owner's username); past the end, the last page. ``total``:
    how many there are, when the caller counted them already."""
    if total is None:
        charged = (Deployment.group_name == group, holding_clause())
        total = db.session.scalar(select(func.count(Deployment.id)).where(*charged)) or 0
    page = _page_within(asked, total, size)
    values = {"group": group, "size": size, "skip": (page - 1) * size}
    rows = db.session.execute(_running_page(), values).all()
    return Paged([tuple(row) for row in rows], int(total), page, size)


@lru_cache(maxsize=1)
def _running_page():
    """The statement of a page of ``running_deployments``, built once (building it cost as
    much as running it): the group bound as ``group``, the page as ``size`` and ``skip``."""
    newest_first = (Deployment.created_at.desc(), Deployment.id.desc())
    # The page's ids first, from the group's holding index alone; then only their rows.
    shown = (
        select(Deployment.id)
        .where(Deployment.group_name == bindparam("group"), holding_clause())
        .order_by(*newest_first)
        .limit(bindparam("size", type_=Integer))
        .offset(bindparam("skip", type_=Integer))
        .scalar_subquery()
    )
    return (
        select(Deployment, User.username)
        .join(User, User.id == Deployment.user_id)
        # What a row shows: the template's text and outputs can be large.
        .options(
            load_only(
                Deployment.id,
                Deployment.name,
                Deployment.user_id,
                Deployment.status,
                Deployment.template_name,
                Deployment.template_slug,
                Deployment.charge,
                Deployment.created_at,
                Deployment.deleted,
                raiseload=True,
            )
        )
        .where(Deployment.id.in_(shown))
        .order_by(*newest_first)
    )


@dataclass
class WaitingRequest:
    """A request charged to the group waiting in line: its deployment, its owner, its place in
    its line and the line in words."""

    entry: LineEntry
    deployment: Deployment
    owner: str
    place: int
    line_words: str


def _waits(group):
    """The conditions of a request charged to ``group`` (a value or a bound parameter)
    waiting in line."""
    return (
        Deployment.group_name == group,
        Deployment.status == Status.WAITING,
        Deployment.deleted.is_(False),
    )


@lru_cache(maxsize=1)
def _waiting_page():
    """The statement of a page of ``waiting_requests``, built once (building it cost as much
    as running it): the group bound as ``group``, the page as ``size`` and ``skip``."""
    waits = _waits(bindparam("group"))
    theirs = (
        select(LineEntry.line)
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .where(*waits)
        .distinct()
    )
    place = func.row_number().over(
        partition_by=LineEntry.line, order_by=(places.sort_clause(), LineEntry.deployment_id)
    )
    # Materialized: the places are numbered once, where a planner expecting one waiting
    # request of the group (PostgreSQL does) numbered the lines again for each of them.
    ranked = (
        select(LineEntry.deployment_id, place.label("place"))
        .where(LineEntry.line.in_(theirs))
        .cte("ranked")
        .prefix_with("MATERIALIZED")
    )
    return (
        select(LineEntry, Deployment, User.username, ranked.c.place, func.count().over())
        # What a row shows: a request's template and inputs can be large.
        .options(
            load_only(
                Deployment.id,
                Deployment.name,
                Deployment.template_name,
                Deployment.status,
                Deployment.deleted,
                raiseload=True,
            )
        )
        .join(ranked, ranked.c.deployment_id == LineEntry.deployment_id)
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .join(User, User.id == LineEntry.user_id)
        .where(*waits)
        .order_by(LineEntry.line, ranked.c.place)
        .limit(bindparam("size", type_=Integer))
        .offset(bindparam("skip", type_=Integer))
    )


def waiting_requests(group: str, asked: int = 1, size: int = WAITING_SHOWN) -> Paged:
    """Page ``asked`` of the requests charged to ``group`` waiting in line, by line and place.
    Places are numbered over each whole line (whoever's its requests are), as the line itself
    counts them (``places.position``)."""

    def read(page: int) -> list:
        values = {"group": group, "size": size, "skip": (page - 1) * size}
        return db.session.execute(_waiting_page(), values).all()

    # The page and how many wait in one statement; past the end, none are counted, and the
    # last page is read once they are.
    rows = read(max(asked, 1))
    if rows:
        page, total = max(asked, 1), rows[0][-1]
    else:
        total = (
            db.session.scalar(
                select(func.count(LineEntry.deployment_id))
                .join(Deployment, Deployment.id == LineEntry.deployment_id)
                .join(User, User.id == LineEntry.user_id)
                .where(*_waits(group))
            )
            or 0
        )
        page = _page_within(asked, total, size)
        rows = read(page) if total else []
    shown = []
    for entry, deployment, owner, position, _total in rows:
        line = places.Line.from_key(entry.line)
        shown.append(
            WaitingRequest(entry, deployment, owner, int(position), line.operator_words(owner))
        )
    return Paged(shown, int(total), page, size)


@dataclass
class GroupLimits:
    """The group's pool against what it holds now, and the default each member gets; and
    how many deployments each person runs charged to the group (read with the pool's sums)."""

    pool: Assessment
    member_default: str
    member_default_set: bool
    running: dict[int, int] = field(default_factory=dict)


def group_limits(group: str) -> GroupLimits:
    limits = pool_limits(group)
    held, running = pool_and_people(group, limits.gpu_models)
    pool = assess(group, limits, held, {"gpu_models": {}}, lambda: [], show_unlimited=True)
    default = rows_for([(MEMBER, group)]).get((MEMBER, group))
    return GroupLimits(pool, describe_limits(default or {}), bool(default), running)


@dataclass
class _WholeGroup:
    """Who ``budget_left`` reads the group's budgets for: nobody in particular (no person's
    budget is found under an id of 0)."""

    id: int = 0
    username: str = ""


def group_budgets(group: str) -> list[BudgetCheck]:
    """Each of ``group``'s budgets with what is used and left of it in its current period and
    when it renews, as a launch charged to the group meets them (``budget_left``), asked for
    nothing more: a launch's own need is zero."""
    budgets = budgets_of(GROUP, group)
    if not budgets:
        return []
    # A request that counts against each of the budgets (so that none is left out as one it
    # needs nothing of), for no hours.
    models = {model_of(b.resource) for b in budgets if b.resource != CORE_HOURS} - {None}
    probe = {"cores": 1, "gpu_models": {model: 1 for model in models} or {"": 1}}
    checks = budget_left(_WholeGroup(), group, probe, 0)
    return sorted((c for c in checks if c.scope == GROUP), key=lambda c: c.resource)
