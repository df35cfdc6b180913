"""Finding deployments for the list page: whose, which statuses, which template, which words,
and one page of them at a time.

Filters come from the query string and are read leniently: an unknown value means "any", so a
stale bookmark still shows a list. Paging is by offset over ``created_at, id`` (indexed with
``user_id``), which stays fast for thousands of rows per person.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import load_only, with_expression

from app.auth.managers import managed_groups
from app.auth.models import User
from app.bounds import page_number
from app.catalogue.loader import catalogue
from app.deployments import listed
from app.deployments.access import shared_with_condition
from app.deployments.listed import IS_JOB, JOB_HINT
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

# Groups that hold only jobs (True) or only services (False).
ONLY_JOBS = {"ready": False, "succeeded": True}

# "Shared with me" and, for a group's managers, "my groups'" (``Filters.shared``).
SHARED_WITH_ME, MY_GROUPS = "me", "groups"
YES_WORDS = frozenset({"1", "true", "yes", "on", SHARED_WITH_ME})

EVERYONE = "*"
# How people write "everyone" in the Whose filter ("*" still works in old links).
EVERYONE_WORDS = frozenset({"*", "everyone", "all"})

# The table's columns: the conditions and orders below are the same for the list's plain rows
# (``listed``), whose statement then stays clear of the ORM's machinery, and for the API's
# entities.
_COLUMN = Deployment.__table__.c

# Orders the list can be sorted in (the API's ``sort``), each ending with the id so that pages
# never overlap.
SORT_COLUMNS = {
    "createdAt": _COLUMN.created_at,
    "name": _COLUMN.name,
    "status": _COLUMN.status,
}
NEWEST_FIRST = ("createdAt", "desc")

# What a row of the list shows, as the entity's attributes (the API reads entities).
LIST_COLUMNS = tuple(getattr(Deployment, name) for name in listed.SHOWN_COLUMNS)


@dataclass(frozen=True)
class Filters:
    """What the list is narrowed to; ``owner`` is for admins: "" (mine), "*" or a username;
    ``shared`` is "" (mine), SHARED_WITH_ME or MY_GROUPS' (for their managers)."""

    status: str = ""
    template: str = ""
    text: str = ""
    owner: str = ""
    page: int = 1
    shared: str = ""

    @classmethod
    def from_args(cls, args: Any, may_see_others: bool) -> Filters:
        status = args.get("status", "")
        owner = args.get("user", "").strip()[:255] if may_see_others else ""
        if owner and (
            owner.lower() in EVERYONE_WORDS or owner.lower() == gettext("Everyone").lower()
        ):
            owner = EVERYONE
        page = page_number(args.get("page"))
        shared = str(args.get("shared", "")).strip().lower()
        shared = SHARED_WITH_ME if shared in YES_WORDS else MY_GROUPS if shared == MY_GROUPS else ""
        return cls(
            shared=shared,
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
            "shared": {SHARED_WITH_ME: "1", MY_GROUPS: MY_GROUPS}.get(self.shared, ""),
        }
        values.update(changes)
        return {key: value for key, value in values.items() if value not in ("", None, 1)}

    @property
    def narrowed(self) -> bool:
        return bool(self.status or self.template or self.text or self.shared)


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


def _owner_condition(viewer: User, owner: str, shared: str = ""):
    """Whose deployments: the viewer's own, those shared with them, those of the groups they
    manage, or for admins everyone's or one user's."""
    if shared == SHARED_WITH_ME:
        return shared_with_condition(viewer)
    if shared == MY_GROUPS:
        groups = sorted(managed_groups(viewer))
        return _COLUMN.group_name.in_(groups) & (_COLUMN.user_id != viewer.id)
    if not viewer.is_admin or not owner:
        return _COLUMN.user_id == viewer.id
    if owner == EVERYONE:
        return None
    user_ids = select(User.id).where(func.lower(User.username) == owner.lower())
    return _COLUMN.user_id.in_(user_ids)


def _own_list(viewer: User, filters: Filters) -> bool:
    """Whether ``filters`` ask for the viewer's own list (no one else's, nothing shared)."""
    return not filters.shared and (not viewer.is_admin or not filters.owner)


def _whose(viewer: User, filters: Filters) -> list:
    """Whose deployments, as conditions (none for everyone's). The viewer's own list names no
    value in its statements (the viewer's id is the parameter ``viewer_id``): they are kept."""
    if _own_list(viewer, filters):
        return [_COLUMN.user_id == bindparam("viewer_id")]
    owner = _owner_condition(viewer, filters.owner, filters.shared)
    return [] if owner is None else [owner]


def _whose_values(viewer: User, filters: Filters) -> dict[str, Any]:
    """The values of ``_whose``'s bound parameters."""
    return {"viewer_id": viewer.id} if _own_list(viewer, filters) else {}


def _values(viewer: User, filters: Filters) -> dict[str, Any]:
    """The values of ``_conditions``' bound parameters."""
    values = _whose_values(viewer, filters)
    if filters.template:
        values["template"] = filters.template
    for number, word in enumerate(filters.text.split()):
        pattern = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        values[f"word_{number}"] = "%" + pattern + "%"
    return values


def _conditions(viewer: User, filters: Filters) -> list:
    """The list's conditions, the values as bound parameters (``_values``)."""
    conditions = [_COLUMN.deleted.is_(False), *_whose(viewer, filters)]
    if filters.status:
        conditions.append(_COLUMN.status.in_(STATUS_GROUPS[filters.status][1]))
        if filters.status in ONLY_JOBS:
            conditions.append(IS_JOB.is_(ONLY_JOBS[filters.status]))
    if filters.template:
        conditions.append(_COLUMN.template_slug == bindparam("template"))
    for number in range(len(filters.text.split())):
        conditions.append(
            or_(
                *(
                    column.ilike(bindparam(f"word_{number}"), escape="\\")
                    for column in (
                        _COLUMN.name,
                        _COLUMN.template_name,
                        _COLUMN.uuid,
                        _COLUMN.group_name,
                        _COLUMN.site,
                    )
                )
            )
        )
    return conditions


# Statements of the viewer's own list, built once per shape and kept: building one, and the
# key SQLAlchemy finds its compiled form by, cost more than running it on one person's rows.
# A shape is what a statement's text depends on (the values go in as parameters): a few per
# status, template and number of searched words.
_STATEMENTS: dict[tuple, Any] = {}


def _kept(viewer: User, filters: Filters, shape: tuple, build):
    """The statement ``build()`` makes, kept under ``shape`` for the viewer's own list (whose
    statements hold no value), built anew for others' lists (theirs hold their values)."""
    if not _own_list(viewer, filters):
        return build()
    found = _STATEMENTS.get(shape)
    if found is None:
        found = _STATEMENTS[shape] = build()
    return found


def _narrowing(filters: Filters) -> tuple:
    """What the text of the list's statements depends on in ``filters``."""
    return filters.status, bool(filters.template), len(filters.text.split())


@cache
def _list_options() -> tuple:
    # Built once: building the loader options anew cost a tenth of the list's reading.
    return load_only(*LIST_COLUMNS), with_expression(Deployment.job_hint, JOB_HINT)


def _count_statement(conditions: list):
    return select(func.count(_COLUMN.id)).where(*conditions)


def _page_statement(conditions: list, sort: tuple[str, str], plain: bool):
    """One page of rows (``size`` from ``offset``) in the order ``sort`` names, each with the
    count of them all: one statement rather than two. ``plain``: the list's columns
    (``listed``), else entities."""
    column = SORT_COLUMNS[sort[0]]
    if sort[1] == "asc":
        order = (column.asc(), _COLUMN.id.asc())
    else:
        order = (column.desc(), _COLUMN.id.desc())
    counted = _count_statement(conditions).scalar_subquery().correlate(None)
    if plain:
        chosen = select(*listed.COLUMNS, IS_JOB, counted)
    else:
        chosen = select(Deployment, counted).options(*_list_options())
    return (
        chosen.where(*conditions)
        .order_by(*order)
        .limit(bindparam("size"))
        .offset(bindparam("offset"))
    )


def list_page(
    viewer: User,
    filters: Filters,
    size: int,
    sort: tuple[str, str] = NEWEST_FIRST,
    plain: bool = False,
) -> ListPage:
    """The page of deployments ``viewer`` may see that ``filters`` asks for, in the order
    ``sort`` names (a key of SORT_COLUMNS and "asc" or "desc"; newest first by default): as
    ``Deployment`` entities, or ``plain``, as the list's rows (``listed.ListedDeployment``)."""
    values = _values(viewer, filters)
    shape = ("page", plain, *sort, *_narrowing(filters))
    statement = _kept(
        viewer, filters, shape, lambda: _page_statement(_conditions(viewer, filters), sort, plain)
    )
    page = filters.page
    # Read through the session's connection: the rows are plain values (or, for the API,
    # entities the statement's own loading builds), and the session's ORM steps around a
    # statement (its events, its bind lookup) cost more than the reading of one person's page.
    reader = db.session.connection() if plain else db.session
    rows = reader.execute(statement, {**values, "size": size, "offset": (page - 1) * size})
    rows = rows.all()
    if rows:
        total = rows[0][-1]
    else:
        # Past the end (an old link, a list that shrank): the count alone, then the last page.
        shape = ("count", *_narrowing(filters))
        counting = _kept(
            viewer, filters, shape, lambda: _count_statement(_conditions(viewer, filters))
        )
        total = db.session.scalar(counting, values) or 0
        page = min(page, max((total + size - 1) // size, 1))
        if total and page != filters.page:
            offset = (page - 1) * size
            rows = reader.execute(statement, {**values, "size": size, "offset": offset})
            rows = rows.all()
    owners_shown = (viewer.is_admin and bool(filters.owner)) or bool(filters.shared)
    shown = listed.listed(rows) if plain else [row[0] for row in rows]
    return ListPage(shown, total, page, size, owners_shown)


def templates_of(viewer: User, filters: Filters) -> list[tuple[str, str]]:
    """(slug, name) of the templates the viewer's deployments (in the same scope) came from."""
    statement = _kept(
        viewer,
        filters,
        ("templates",),
        lambda: (
            select(_COLUMN.template_slug, func.max(_COLUMN.template_name))
            .where(_COLUMN.deleted.is_(False), *_whose(viewer, filters))
            .group_by(_COLUMN.template_slug)
        ),
    )
    rows = db.session.connection().execute(statement, _whose_values(viewer, filters))
    shown = [(slug, _in_reader_language(slug, name) or slug) for slug, name in rows]
    return sorted(shown, key=lambda row: row[1].lower())


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
    statement = _kept(
        viewer,
        filters,
        ("past",),
        lambda: select(_COLUMN.id).where(*_whose(viewer, filters)).limit(1),
    )
    return db.session.scalar(statement, _whose_values(viewer, filters)) is not None
