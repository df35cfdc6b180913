"""A person's change stamp: it moves whenever anything their list of deployments shows changes.

The list polls itself every few seconds while something is in progress; most polls find nothing
new. Rather than render the rows to learn that, the poll compares a stamp read from one index
(``ix_deployments_user_shown``): the number of the person's rows, the sum of their
``shown_version`` and the highest id. Every flush that changes a column the list shows bumps
that row's ``shown_version``, whoever writes it (launch, callback, sync, delete, adoption), in
the same UPDATE, so no extra row is locked and no writer can forget. A new row changes the count;
versions only grow, so the sum moves with every change.

The list and its polls read the stamp with the login check (``read_with_login``): for a poll
whose tag is still current, that one query is all the database is asked.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata

from flask import Flask, request
from flask_login import current_user
from sqlalchemy import String, cast, func, select
from sqlalchemy.orm import attributes

from app.auth.logins import LoginReading, login_reading
from app.deployments.models import Deployment
from app.extension_points import LOGIN_READINGS
from app.extensions import db, listen_once

READING = "deployments_stamp"

# Every column a row of the list reads, or that decides whether or where a row is listed (the
# filters, the order, ``in_progress``). app.deployments.queries.LIST_COLUMNS must stay within it.
SHOWN = (
    "uuid",
    "user_id",
    "name",
    "template_slug",
    "revision_id",
    "template_name",
    "group_name",
    "charge",
    "status",
    "status_reason",
    "site",
    "region",
    "deployment_type",
    "outputs",
    "created_at",
    "deleted",
)


def listen() -> None:
    """Bump a deployment's ``shown_version`` whenever a column its row shows changes."""
    listen_once(Deployment, "before_update", _bump_when_shown_changes)


def _bump_when_shown_changes(_mapper, _connection, deployment: Deployment) -> None:
    if any(attributes.get_history(deployment, name).has_changes() for name in SHOWN):
        # An expression, not a value read earlier: two writers never lose a bump.
        deployment.shown_version = Deployment.shown_version + 1


def _figures():
    return (
        func.count(Deployment.id),
        func.coalesce(func.sum(Deployment.shown_version), 0),
        func.coalesce(func.max(Deployment.id), 0),
    )


def stamp(user_id: int) -> tuple[int, int, int]:
    """The person's change stamp: (rows, sum of versions, highest id), from the index alone."""
    count, versions, highest = db.session.execute(
        select(*_figures()).where(Deployment.user_id == user_id)
    ).one()
    return int(count), int(versions), int(highest)


def stamp_as_text(user_id_column):
    """The stamp as one text, "rows.versions.highest", in a scalar subquery: what the login
    check reads for the pages that need it (see app.auth.logins.LoginReading)."""
    count, versions, highest = (cast(figure, String) for figure in _figures())
    return (
        select(count + "." + versions + "." + highest)
        .where(Deployment.user_id == user_id_column)
        .scalar_subquery()
    )


def stamp_from_text(text: str) -> tuple[int, int, int]:
    """The stamp ``stamp_as_text`` wrote."""
    count, versions, highest = (int(figure) for figure in text.split("."))
    return count, versions, highest


def read_with_login(app: Flask, endpoints: tuple[str, ...]) -> None:
    """Have the login check of requests to ``endpoints`` read the person's stamp."""
    LOGIN_READINGS.add(
        app, LoginReading(READING, stamp_as_text, lambda: request.endpoint in endpoints)
    )


def own_etag(*parts: object) -> str:
    """``etag`` of the logged-in person's own list, with their stamp as the login check read
    it when it did, and the portal's version."""
    read = login_reading(READING)
    known = stamp_from_text(read) if read is not None else None
    return etag(current_user.id, *parts, _portal_version(), known=known)


@cache
def _portal_version() -> str:
    """The installed portal's version: an upgrade may render the same rows differently."""
    try:
        return metadata.version("research-cloud-portal")
    except metadata.PackageNotFoundError:
        return "unknown"


def etag(user_id: int, *parts: object, known: tuple[int, int, int] | None = None) -> str:
    """An entity tag for a view of ``user_id``'s deployments: their stamp (``known``, when it
    was read already in this request) and ``parts`` (what else the answer depends on, e.g.
    the filters and the portal's version)."""
    text = repr((user_id, known or stamp(user_id), parts))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
