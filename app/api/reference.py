"""The API's description: the OpenAPI document, a readable reference page (Swagger UI, served
from static/vendor), and a page for each problem type."""

from __future__ import annotations

from flask import abort, current_app, jsonify, render_template
from flask_babel import force_locale
from flask_babel import gettext as _

from app.api import bp, openapi
from app.api.links import portal_root
from app.api.problems import KINDS


@bp.get("/openapi.json")
@openapi.operation("This document: the API in OpenAPI 3.1", public=True, response=None, problems=())
def openapi_document():
    # Developer documentation, in English whatever the caller's language (see README).
    with force_locale("en"):
        document = openapi.build(current_app, portal_root() + bp.url_prefix)
    return jsonify(document)


@bp.get("/docs")
@openapi.operation("The API reference, readable", public=True, media_type="text/html")
def reference():
    return render_template("api/reference.html")


@bp.get("/problems/<kind>")
@openapi.operation(
    "What a problem type means", public=True, media_type="text/html", problems=("not-found",)
)
def problem_kind(kind: str):
    if kind not in KINDS:
        abort(404, _("There is no such problem type."))
    status, title = KINDS[kind]
    return render_template("api/problem.html", kind=kind, status=status, title=title, kinds=KINDS)
