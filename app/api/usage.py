"""Usage over time for scripts: per day and in total, for the caller, a person (operators) or
a group (its members, operators), from the running totals the pages read."""

from __future__ import annotations

from datetime import timedelta

from flask import jsonify, request
from flask_babel import gettext as _
from marshmallow import EXCLUDE, Schema, ValidationError, fields

from app.api import bp
from app.api.auth import caller, requires
from app.api.openapi import operation
from app.api.problems import Problem
from app.api.schemas import Out
from app.api.validation import field_errors
from app.auth.groups import normalise_group
from app.auth.models import User
from app.clock import utcnow
from app.extensions import db
from app.quotas.usage_charts import days_body, may_see_group_usage

# The longest stretch one call may ask for, in days.
MOST_DAYS = 732


class UsageQuery(Schema):
    class Meta:
        unknown = EXCLUDE

    user = fields.String(load_default=None, metadata={"description": "A username (default: you)"})
    group = fields.String(load_default=None, metadata={"description": "A group's name"})
    from_ = fields.Date(
        data_key="from",
        load_default=None,
        metadata={"description": "First day, YYYY-MM-DD (default: the 1st of this month)"},
    )
    to = fields.Date(
        load_default=None, metadata={"description": "Last day, YYYY-MM-DD (default: today)"}
    )


class UsageHours(Out):
    core_hours = fields.Float()
    memory_gb_hours = fields.Float()
    gpu_hours = fields.Float(metadata={"description": "Of every GPU model"})
    gpu_hours_by_model = fields.Dict(
        keys=fields.String(), values=fields.Float(), metadata={"example": {"A100": 48.0}}
    )


class UsageDay(UsageHours):
    date = fields.String(metadata={"example": "2026-11-28"})


class UsageReport(Out):
    user = fields.String(allow_none=True)
    group = fields.String(allow_none=True)
    from_ = fields.String(data_key="from")
    to = fields.String()
    days = fields.List(fields.Nested(UsageDay), metadata={"description": "Days with use only"})
    total = fields.Nested(UsageHours)


@bp.get("/usage")
@requires("quota:read")
@operation(
    "Usage per day and in total: core-hours, memory and GPU-hours per GPU model",
    response=UsageReport,
    query=UsageQuery,
    problems=("bad-request", "forbidden", "not-found"),
    description=(
        "Without `user` and `group`: your own use. `user`: that person's (operators and admins; "
        "yourself). `group`: the use charged to that group (its members, operators and "
        "admins). Both: that person's use charged to that group. Days are UTC."
    ),
)
def get_usage():
    person = caller().user
    try:
        query = UsageQuery().load(request.args)
    except ValidationError as error:
        raise Problem(
            "bad-request",
            _("The usage query is not valid."),
            extra={"errors": field_errors(error.messages)},
        ) from error
    today = utcnow().date()
    last = query["to"] or today
    first = query["from_"] or last.replace(day=1)
    if first > last or last - first > timedelta(days=MOST_DAYS):
        raise Problem(
            "bad-request",
            _(
                "Ask for a first day before the last, at most %(count)d days apart.",
                count=MOST_DAYS,
            ),
            extra={"errors": {"from": [_("Not a valid stretch of days.")]}},
        )
    who: dict = {}
    shown_user = None
    if query["user"] is None and query["group"] is None:
        who["user_id"], shown_user = person.id, person.username
    if query["user"] is not None:
        named = db.session.query(User).filter_by(username=query["user"]).one_or_none()
        if named is None and (person.is_operator or person.is_admin):
            raise Problem("not-found", _("There is no such user."))
        if named is None or not (named.id == person.id or person.is_operator or person.is_admin):
            raise Problem("forbidden", _("You may see your own usage only."))
        who["user_id"], shown_user = named.id, named.username
    group = None
    if query["group"] is not None:
        group = normalise_group(query["group"])
        if not may_see_group_usage(person, group):
            raise Problem("forbidden", _("You may see the usage of your own groups only."))
        who["group_name"] = group
    body = {
        "user": shown_user,
        "group": group,
        "from_": first.isoformat(),
        "to": last.isoformat(),
        **days_body(first, last, **who),
    }
    return jsonify(UsageReport().dump(body))
