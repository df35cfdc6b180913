"""Finding deployments for the list page: whose, which statuses, which template, which words,
and one page of them at a time.

Filters come from the query string and are read leniently: an unknown value means "any", so a
stale bookmark still shows a list. Paging is by offset over ``created_at, id`` (indexed with
``user_id``), which stays fast for thousands of rows per person.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from sqlalchemy import Integer, bindparam, false, func, or_, select
from sqlalchemy.orm import load_only, with_expression

from app.auth.models import User
from app.bounds import page_number
from app.catalogue.loader import catalogue
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db

# Status groups offered by the filter, and the statuses each one covers. The list mixes
# services and batch jobs: a service that is ready and a job that succeeded share a status, so
# ``ONLY_JOBS`` tells those two groups apart; the other groups' words cover both.
STATUS_GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "progress": (
        _l("In progress, queued or running"),
        (
            Status.WAITING,
            Status.SUBMITTING,
            Status.UNCONFIRMED,
            Status.CREATING,
            Status.UPDATING,
            Status.DELETING,
        ),
    ),
    "ready": (_l("Ready (services)"), (Status.READY, Status.UPDATED)),
    "succeeded": (_l("Succeeded (batch jobs)"), (Status.READY,)),
    "failed": (
        _l("Failed or not launched"),
        (Status.FAILED, Status.UPDATE_FAILED, Status.DELETE_FAILED, Status.NOT_LAUNCHED),
    ),
    "gone": (_l("Gone or unknown"), (Status.VANISHED, Status.UNKNOWN, Status.DELETED)),
}

# A batch job before a site took it (its type is known only then): the list reads its Chronos
# node in the database rather than load every row's template text.
JOB_HINT = Deployment.template_text.like("%Docker.Chronos%")
# The same rule as ``jobs.is_job``, for the database: once placed, the site's type says so,
# before that the text; never NULL, so that "not a job" holds for a row with neither.
IS_JOB = func.coalesce(Deployment.deployment_type == "CHRONOS", JOB_HINT, false())
# Groups that hold only jobs (True) or only services (False).
ONLY_JOBS = {"ready": False, "succeeded": True}

EVERYONE = "*"
# How people write "everyone" in the Whose filter ("*" still works in old links).
EVERYONE_WORDS = frozenset({"*", "everyone", "all"})

# Orders the list can be sorted in (the API's ``sort``), each ending with the id so that pages
# never overlap.
SORT_COLUMNS = {
    "createdAt": Deployment.created_at,
    "name": Deployment.name,
    "status": Deployment.status,
}
NEWEST_FIRST = ("createdAt", "desc")

# What a row of the list shows; the template text, parameters and sealed secrets stay unread.
LIST_COLUMNS = (
    Deployment.uuid,
    Deployment.user_id,
    Deployment.name,
    Deployment.template_slug,
    Deployment.revision_id,
    Deployment.template_name,
    Deployment.group_name,
    Deployment.charge,
    Deployment.status,
    Deployment.status_reason,
    Deployment.site,
    Deployment.region,
    Deployment.deployment_type,  # a batch job's row speaks of runs (its template is read then)
    Deployment.outputs,
    Deployment.created_at,
    Deployment.deleted,
)


@dataclass(frozen=True)
class Filters:
    """What the list is narrowed to; ``owner`` is for admins: "" (mine), "*" or a username."""

    status: str = ""
    template: str = ""
    text: str = ""
    owner: str = ""
    page: int = 1

    @classmethod
    def from_args(cls, args: Any, may_see_others: bool) -> Filters:
        status = args.get("status", "")
        owner = args.get("user", "").strip()[:255] if may_see_others else ""
        if owner.lower() in EVERYONE_WORDS or owner.lower() == gettext("Everyone").lower():
            owner = EVERYONE
        page = page_number(args.get("page"))
        return cls(
            status=status if status in STATUS_GROUPS else "",
            template=args.get("template", "").strip()[:100],
            text=" ".join(args.get("q", "").split())[:200],
            owner=owner,
            page=page,
        )

    def args(self, **changes) -> dict[str, Any]:
        """The query string of these filters with ``changes``, leaving out empty values."""
        values = {
            "status": self.status,
            "template": self.template,
            "q": self.text,
            "user": "everyone" if self.owner == EVERYONE else self.owner,
            "page": self.page if self.page > 1 else "",
        }
        values.update(changes)
        return {key: value for key, value in values.items() if value not in ("", None, 1)}

    @property
    def narrowed(self) -> bool:
        return bool(self.status or self.template or self.text)


@dataclass
class ListPage:
    """One page of the list, with what the page needs to offer the next and previous ones."""

    deployments: list[Deployment]
    total: int
    page: int
    size: int
    owners_shown: bool

    @property
    def first(self) -> int:
        return (self.page - 1) * self.size + 1 if self.deployments else 0

    @property
    def last(self) -> int:
        return self.first + len(self.deployments) - 1 if self.deployments else 0

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page * self.size < self.total

    @property
    def pages(self) -> int:
        return max((self.total + self.size - 1) // self.size, 1)


def _owner_condition(viewer: User, owner: str):
    """Whose deployments: the viewer's own, or for admins everyone's or one user's."""
    if not viewer.is_admin or not owner:
        return Deployment.user_id == viewer.id
    if owner == EVERYONE:
        return None
    user_ids = select(User.id).where(func.lower(User.username) == owner.lower())
    return Deployment.user_id.in_(user_ids)


def _whose(viewer: User, owner: str) -> str:
    """Whose list, as the statements tell it: "own", "everyone" or "user" (one named)."""
    if not viewer.is_admin or not owner:
        return "own"
    return "everyone" if owner == EVERYONE else "user"


def _words(text: str) -> list[str]:
    """The LIKE patterns of the words searched for, their wildcards taken literally."""
    return [
        "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        for word in text.split()
    ]


def _conditions_of(whose: str, status: str, template: bool, words: int) -> list:
    """The list's conditions for a shape of filters, the values left as parameters: "viewer"
    (or "owner", a lower-cased username), "template" and "word0", "word1"... (``_values``)."""
    conditions = [Deployment.deleted.is_(False)]
    if whose == "own":
        conditions.append(Deployment.user_id == bindparam("viewer"))
    elif whose == "user":
        named = select(User.id).where(func.lower(User.username) == bindparam("owner"))
        conditions.append(Deployment.user_id.in_(named))
    if status:
        conditions.append(Deployment.status.in_(STATUS_GROUPS[status][1]))
        if status in ONLY_JOBS:
            conditions.append(IS_JOB.is_(ONLY_JOBS[status]))
    if template:
        conditions.append(Deployment.template_slug == bindparam("template"))
    for n in range(words):
        word = bindparam(f"word{n}")
        searched = (
            Deployment.name,
            Deployment.template_name,
            Deployment.uuid,
            Deployment.group_name,
            Deployment.site,
        )
        conditions.append(or_(*(column.ilike(word, escape="\\") for column in searched)))
    return conditions


def _shape(viewer: User, filters: Filters) -> tuple:
    return (
        _whose(viewer, filters.owner),
        filters.status,
        bool(filters.template),
        len(filters.text.split()),
    )


def _values(viewer: User, filters: Filters) -> dict[str, Any]:
    """The parameters of ``_conditions_of`` for ``viewer`` and ``filters``."""
    values: dict[str, Any] = {"viewer": viewer.id, "owner": filters.owner.lower()}
    if filters.template:
        values["template"] = filters.template
    values.update((f"word{n}", pattern) for n, pattern in enumerate(_words(filters.text)))
    return values


@lru_cache(maxsize=256)
def _page_statements(shape: tuple, sort: tuple[str, str]):
    """The count and the page's select for a shape of filters (``_shape``) and an order, built
    once: building them anew cost as much as running them. The page's size and offset are
    parameters too ("size", "skip")."""
    conditions = _conditions_of(*shape)
    column = SORT_COLUMNS[sort[0]]
    if sort[1] == "asc":
        order = (column.asc(), Deployment.id.asc())
    else:
        order = (column.desc(), Deployment.id.desc())
    count = select(func.count(Deployment.id)).where(*conditions)
    page = (
        select(Deployment)
        .options(*_list_options())
        .where(*conditions)
        .order_by(*order)
        .limit(bindparam("size", type_=Integer))
        .offset(bindparam("skip", type_=Integer))
    )
    return count, page


@cache
def _list_options() -> tuple:
    # Built once: building the loader options anew cost a tenth of the list's reading.
    return load_only(*LIST_COLUMNS), with_expression(Deployment.job_hint, JOB_HINT)


def list_page(
    viewer: User, filters: Filters, size: int, sort: tuple[str, str] = NEWEST_FIRST
) -> ListPage:
    """The page of deployments ``viewer`` may see that ``filters`` asks for, in the order
    ``sort`` names (a key of SORT_COLUMNS and "asc" or "desc"; newest first by default)."""
    count, statement = _page_statements(_shape(viewer, filters), tuple(sort))
    values = _values(viewer, filters)
    total = db.session.scalar(count, values) or 0
    pages = max((total + size - 1) // size, 1)
    page = min(filters.page, pages)
    values.update(size=size, skip=(page - 1) * size)
    deployments = list(db.session.scalars(statement, values))
    owners_shown = viewer.is_admin and bool(filters.owner)
    return ListPage(deployments, total, page, size, owners_shown)


def templates_of(viewer: User, filters: Filters) -> list[tuple[str, str]]:
    """(slug, name) of the templates the viewer's deployments (in the same scope) came from."""
    whose = _whose(viewer, filters.owner)
    values = {"viewer": viewer.id, "owner": filters.owner.lower()}
    rows = db.session.execute(_templates_statement(whose), values)
    shown = [(slug, _in_reader_language(slug, name) or slug) for slug, name in rows]
    return sorted(shown, key=lambda row: row[1].lower())


@lru_cache(maxsize=4)
def _templates_statement(whose: str):
    """The query of ``templates_of`` for "own", "everyone" or "user" lists, built once."""
    conditions = _conditions_of(whose, "", False, 0)
    return (
        select(Deployment.template_slug, func.max(Deployment.template_name))
        .where(*conditions)
        .group_by(Deployment.template_slug)
    )


def _in_reader_language(slug: str, name: str | None) -> str | None:
    """A recorded template name in the reader's language, when the catalogue still offers
    the template under that name (see ``Deployment.shown_template_name``)."""
    entry = catalogue().get(slug)
    return entry.parsed.name if entry is not None and entry.template.name == name else name


def usernames(user_ids: set[int], known: User | None = None) -> dict[int, str]:
    """Usernames by id, for the owner column and timeline actors; ``known`` (the viewer,
    already loaded) is named without asking the database."""
    found = {}
    if known is not None and known.id in user_ids:
        found[known.id] = known.username
        user_ids = user_ids - {known.id}
    if user_ids:
        rows = db.session.execute(select(User.id, User.username).where(User.id.in_(user_ids)))
        found.update((user_id, username) for user_id, username in rows)
    return found


def has_past_deployments(viewer: User, filters: Filters) -> bool:
    """Whether the list's owner (in ``filters``' scope) ever had a deployment, deleted ones
    included: an empty list then says "at the moment" rather than "yet"."""
    query = select(Deployment.id).limit(1)
    owner = _owner_condition(viewer, filters.owner)
    if owner is not None:
        query = query.where(owner)
    return db.session.scalar(query) is not None
