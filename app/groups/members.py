"""Who belongs to a group: the people whose groups (as last seen at login, or as an operator
set them) include it, each with what they run charged to the group and their use of it this
month.

A person's groups are a JSON list on their row (``User.groups``), so "members of G" is a
question about the inside of that list. It is asked in the database's own JSON terms, exact on
both: ``json_each`` on SQLite, containment of a ``jsonb`` on PostgreSQL (the column is plain
``json`` there). A text search of the list (``LIKE '%"G"%'``) would be cheaper to write but
wrong for names the JSON encoder escapes. Only the page's members are read, then their
running deployments and this month's use in two grouped queries, however many there are.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import String, cast, exists, func, literal, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import lazyload, load_only

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.holding import holding_clause
from app.quotas.usage_models import MONTH
from app.quotas.usage_totals import Hours, reading_now, usage_per

MEMBERS_SHOWN = 50
SHOWN = (User.id, User.username, User.display_name, User.active, User.provider)


def member_condition(group: str):
    """The condition "``group`` is among the person's groups", in the database's JSON terms."""
    if db.engine.dialect.name == "postgresql":
        return cast(User.groups, JSONB).contains([group])
    listed = func.json_each(User.groups).table_valued("value")
    return exists(
        select(literal(1)).select_from(listed).where(cast(listed.c.value, String) == group)
    )


@dataclass
class Member:
    """One member: who, how many deployments they run charged to the group, and their use
    of it this month."""

    user: User
    running: int
    month: Hours


@dataclass
class MembersPage:
    members: list[Member]
    total: int
    page: int
    size: int = MEMBERS_SHOWN

    @property
    def pages(self) -> int:
        return max((self.total + self.size - 1) // self.size, 1)


def running_by_person(group: str) -> dict[int, int]:
    """How many deployments each person runs charged to ``group`` (holding resources)."""
    rows = db.session.execute(
        select(Deployment.user_id, func.count())
        .where(Deployment.group_name == group, holding_clause())
        .group_by(Deployment.user_id)
    )
    return {user_id: int(count) for user_id, count in rows}


def members_page(
    group: str, page: int = 1, size: int = MEMBERS_SHOWN, running: dict[int, int] | None = None
) -> MembersPage:
    """Page ``page`` of ``group``'s members, by username (past the end: the last page), with
    ``running``, what each person runs charged to the group, when the caller counted it
    already (``running_by_person``)."""
    condition = member_condition(group)

    def read(page: int) -> list:
        return db.session.execute(
            select(User, func.count().over())
            # What a member's row shows: the rest of a person's row (tokens, settings) and
            # their role grants are not read.
            .options(load_only(*SHOWN, raiseload=True), lazyload(User.grants))
            .where(condition)
            .order_by(User.username, User.provider, User.id)
            .limit(size)
            .offset((page - 1) * size)
        ).all()

    # The page and how many members there are in one statement; past the end, none are
    # counted, and the last page is read once they are.
    rows = read(max(page, 1))
    if rows:
        page, total = max(page, 1), rows[0][1]
    else:
        total = db.session.scalar(select(func.count(User.id)).where(condition)) or 0
        page = max(1, min(page, max((total + size - 1) // size, 1)))
        rows = read(page) if total else []
    people = [person for person, _total in rows]
    if running is None:
        running = running_by_person(group)
    this_month = reading_now().date().replace(day=1)
    used = usage_per(
        MONTH,
        this_month,
        this_month,
        group_name=group,
        by="user",
        people=[person.id for person in people],
    )
    members = [
        Member(person, running.get(person.id, 0), used.get((person.id, this_month)) or Hours())
        for person in people
    ]
    return MembersPage(members, int(total), page, size)
