"""Every line as operators see it: its requests in order, with their owners, what they ask
for, how long they have waited and why, a page at a time. A group's manager sees the same
page with only the requests charged to the groups they manage, at their places in the lines.

The lines are laid end to end (by line, each in its order) and cut into pages of
``PAGE_SIZE`` requests, so a line longer than a page goes on over the next ones and the
10,000th request is as reachable as the first. Each page costs the same few queries however
long the lines are: the count of each line, the page's requests with their places (numbered
in SQL, as ``places.position`` counts them), their deployments and their owners.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import abort
from flask_babel import gettext as _
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from app.auth.models import User
from app.deployments import access
from app.deployments.access import Action
from app.deployments.models import Deployment
from app.extensions import db
from app.lines import places
from app.lines.models import LineEntry
from app.quotas.models import USER

PAGE_SIZE = 100
# The requests the page lists: those that wait (an entry leaves with its request; this says so).
_WAITING = (Deployment.status == "WAITING", Deployment.deleted.is_(False))


@dataclass
class LineCount:
    """One line in the overview: its key, its number among the lines (1 for the first, for
    its anchor on the page), how many requests wait in it, the page it starts on and its
    name for operators."""

    key: str
    number: int
    total: int
    page: int
    words: str = ""


@dataclass(frozen=True)
class ListedPlace:
    """A listed request's place in its line (1 for the first)."""

    position: int


@dataclass
class ShownLine:
    """The part of one line a page shows: ``entries`` are (entry, owner's username, place)."""

    count: LineCount
    entries: list[tuple[LineEntry, str, ListedPlace]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.count.key

    @property
    def words(self) -> str:
        return self.count.words

    @property
    def whole(self) -> bool:
        return len(self.entries) == self.count.total

    @property
    def first(self) -> int:
        return self.entries[0][2].position if self.entries else 0

    @property
    def last(self) -> int:
        return self.entries[-1][2].position if self.entries else 0


@dataclass
class LinesPage:
    """One page of the lines. ``asked`` is the page asked for: past the end, the last page is
    shown instead (``past_end``)."""

    lines: list[ShownLine]
    counts: list[LineCount]
    total: int
    page: int
    asked: int
    size: int = PAGE_SIZE
    # The groups whose requests are listed (None: every request), and the listed requests
    # the reader may move or remove.
    groups: frozenset[str] | None = None
    steerable: frozenset[int] = frozenset()

    @property
    def pages(self) -> int:
        return max((self.total + self.size - 1) // self.size, 1)

    @property
    def past_end(self) -> bool:
        return self.asked > self.page

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages

    @property
    def first(self) -> int:
        """The number of the page's first request in the whole listing (0: none)."""
        return (self.page - 1) * self.size + 1 if self.total else 0

    @property
    def last(self) -> int:
        return min(self.page * self.size, self.total)


def _listed(groups: frozenset[str] | None) -> tuple:
    """The conditions of the requests listed: those that wait, of ``groups`` when given."""
    if groups is None:
        return _WAITING
    return (*_WAITING, Deployment.group_name.in_(sorted(groups)))


def line_counts(size: int = PAGE_SIZE, groups: frozenset[str] | None = None) -> list[LineCount]:
    """How many requests wait in each line (of ``groups``, when given), in the order the pages
    show the lines. One query."""
    found = db.session.execute(
        select(LineEntry.line, func.count())
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .where(*_listed(groups))
        .group_by(LineEntry.line)
        .order_by(LineEntry.line)
    ).all()
    counts, before = [], 0
    for number, (key, total) in enumerate(found, start=1):
        counts.append(LineCount(key, number, int(total), before // size + 1))
        before += int(total)
    return counts


def lines_page(
    asked: int, size: int = PAGE_SIZE, *, reader: User | None = None, groups=None
) -> LinesPage:
    """Page ``asked`` (from 1; past the end, the last one) of every line's requests (only
    those charged to ``groups``, when given), with those ``reader`` may move or remove."""
    groups = frozenset(groups) if groups is not None else None
    counts = line_counts(size, groups)
    total = sum(count.total for count in counts)
    page = min(asked, max((total + size - 1) // size, 1))
    rows = _entries(size, (page - 1) * size, groups)
    shown = LinesPage(_shown(counts, rows, page), counts, total, page, asked, size, groups)
    if reader is not None:
        deployments = [entry.deployment for entry, _place in rows]
        access.marks(reader, deployments)  # everyone's relations in one query
        shown.steerable = frozenset(
            d.id for d in deployments if access.may(reader, d, Action.STEER)
        )
    return shown


def every_line() -> list[ShownLine]:
    """Every line with all its requests, in the pages' order (for the command line)."""
    counts = line_counts()
    return _shown(counts, _entries(None, 0), 1)


def _entries(limit: int | None, offset: int, groups=None) -> list[tuple[LineEntry, int]]:
    """The waiting requests (of ``groups``, when given) from ``offset`` on (at most
    ``limit``), by line and place, each with its place in the whole line; their deployments
    and owners loaded with them (two more queries)."""
    place = (
        func.row_number()
        .over(
            partition_by=LineEntry.line,
            order_by=(places.sort_clause(), LineEntry.deployment_id),
        )
        .label("place")
    )
    # Numbered over the whole line, as places.position and a move count places.
    ranked = select(LineEntry.deployment_id, place).subquery()
    statement = (
        select(LineEntry, ranked.c.place)
        .join(ranked, ranked.c.deployment_id == LineEntry.deployment_id)
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .where(*_listed(groups))
        .options(selectinload(LineEntry.deployment).selectinload(Deployment.user))
        .order_by(LineEntry.line, ranked.c.place)
        .offset(offset)
    )
    if limit is not None:
        statement = statement.limit(limit)
    return [(entry, int(position)) for entry, position in db.session.execute(statement)]


def _shown(counts: list[LineCount], rows, page: int) -> list[ShownLine]:
    """``rows`` grouped by line, every line of ``counts`` named (one query for the owners)."""
    keys = {count.key: places.Line.from_key(count.key) for count in counts}
    # Whose own limit each user's line is: named in the overview, on any page.
    subjects = {int(k.subject) for k in keys.values() if k.scope == USER and k.subject.isdigit()}
    owners = dict(
        db.session.execute(
            select(User.id, User.username).where(
                User.id.in_(subjects | {entry.user_id for entry, _place in rows})
            )
        ).all()
    )

    def words(line: places.Line) -> str:
        person = line.scope == USER and line.subject.isdigit()
        return line.operator_words(owners.get(int(line.subject)) if person else None)

    for count in counts:
        count.words = words(keys[count.key])
    by_key = {count.key: count for count in counts}
    shown: dict[str, ShownLine] = {}
    for entry, position in rows:
        line = shown.get(entry.line)
        if line is None:
            # A line that began between the two queries is shown, uncounted.
            count = by_key.get(entry.line) or LineCount(
                entry.line, 0, 0, page, words(places.Line.from_key(entry.line))
            )
            line = shown[entry.line] = ShownLine(count)
        line.entries.append((entry, owners.get(entry.user_id, "?"), ListedPlace(position)))
    return list(shown.values())


def steerable(actor: User, deployment_id: int) -> Deployment:
    """The request ``deployment_id`` if ``actor`` may move it in its line or remove it
    (``Action.STEER``: operators any, a group's managers those charged to their group); 404
    otherwise, as if there were none."""
    deployment = db.session.get(Deployment, deployment_id)
    if deployment is None or not access.may(actor, deployment, Action.STEER):
        abort(404, _("There is no such request in any line."))
    return deployment
