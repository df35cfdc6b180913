"""Paging of API lists, as the orchestrator pages: ``page``, ``size``, ``sort`` and links to the
first, previous, next and last pages. Pages are counted from 1, as on the portal's pages (the
orchestrator counts from 0); a page past the end answers with the last one.
"""

from __future__ import annotations

from flask import current_app
from flask_babel import gettext as _
from marshmallow import ValidationError

from app.api import schemas
from app.api.links import absolute_url
from app.api.problems import Problem
from app.api.validation import field_errors
from app.deployments.queries import SORT_COLUMNS, STATUS_GROUPS, Filters, ListPage


def read_query(args, user) -> tuple[Filters, int, tuple[str, str]]:
    """(filters, page size, sort) from the query string; raises Problem "bad-request"."""
    try:
        query = schemas.ListQuery().load(args)
    except ValidationError as error:
        raise Problem(
            "bad-request",
            _("The paging or filter values are not valid."),
            extra={"errors": field_errors(error.messages)},
        ) from error
    size = query["size"] or current_app.config["API_PAGE_SIZE"]
    largest = current_app.config["API_PAGE_SIZE_MAX"]
    if size > largest:
        raise Problem(
            "bad-request",
            _("Ask for at most %(count)d items per page.", count=largest),
            extra={"errors": {"size": [_("At most %(count)d.", count=largest)]}},
        )
    key, _sep, direction = query["sort"].partition(",")
    direction = direction or "asc"
    if key not in SORT_COLUMNS or direction not in ("asc", "desc"):
        raise Problem(
            "bad-request",
            _(
                "Sort by %(keys)s, then \u201c,asc\u201d or \u201c,desc\u201d.",
                keys=", ".join(SORT_COLUMNS),
            ),
            extra={"errors": {"sort": [_("Unknown order.")]}},
        )
    if query["status"] and query["status"] not in STATUS_GROUPS:
        raise Problem(
            "bad-request",
            _("status is one of %(names)s.", names=", ".join(STATUS_GROUPS)),
            extra={"errors": {"status": [_("Unknown status group.")]}},
        )
    filters = Filters.from_args({**query, "page": str(query["page"])}, user.is_admin)
    return filters, size, (key, direction)


def page_links(endpoint: str, listed: ListPage, args) -> dict:
    """first, prev, next, last and self links keeping the query's other values."""
    kept = {key: value for key, value in args.items() if key != "page"}
    kept["size"] = listed.size

    def link(page: int) -> str:
        return absolute_url(endpoint, **kept, page=page)

    return {
        "self": link(listed.page),
        "first": link(1),
        "prev": link(listed.page - 1) if listed.has_previous else None,
        "next": link(listed.page + 1) if listed.has_next else None,
        "last": link(listed.pages),
    }
