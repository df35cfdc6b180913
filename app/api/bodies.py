"""Request bodies of the API: JSON objects read by a schema, with a sentence for each way a body
can be unusable (not JSON, nested too deep, not an object, a field's value)."""

from __future__ import annotations

from flask import current_app, request
from flask_babel import gettext as _
from marshmallow import Schema, ValidationError

from app.api.problems import Problem
from app.api.validation import field_errors
from app.bounds import JSON_MAX_DEPTH, TooDeep


def read_body(schema: Schema) -> dict:
    """The JSON body read by ``schema``; raises Problem "bad-request" saying what is wrong."""
    data = _json_body()
    if not isinstance(data, dict):
        raise Problem("bad-request", _("Send a JSON object as the request body."))
    try:
        return schema.load(data)
    except ValidationError as error:
        raise Problem(
            "bad-request",
            _("The request body is not valid; nothing was done."),
            extra={"errors": field_errors(error.messages)},
        ) from error


def _json_body():
    if not request.is_json:
        return None
    try:
        return current_app.json.loads(request.get_data())
    except TooDeep as error:
        raise Problem(
            "bad-request",
            _(
                "The JSON body nests lists and objects more than %(depth)d levels deep; "
                "nothing was done.",
                depth=JSON_MAX_DEPTH,
            ),
        ) from error
    except ValueError as error:
        raise Problem(
            "bad-request", _("The request body is not valid JSON; nothing was done.")
        ) from error
