"""The JSON face of the portal (``/api/v1``): the same operations as the pages, for scripts.

Views here translate HTTP to the operations the pages call (launch, delete, relaunch, reveal,
the quota check) and their errors to ``application/problem+json``; no rule lives here twice.
"""

from flask import Blueprint, Flask, request
from werkzeug.exceptions import HTTPException

from app.api import problems

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def init_api(app: Flask) -> None:
    """Ready the API: its routes on its blueprint (registered by ``app.create_app``), its
    error answers, no CSRF (nothing is a browser form)."""
    from app.api import (  # noqa: F401
        deployments,
        quota,
        reference,
        shares,
        taking_over,
        templates,
        usage,
    )
    from app.extension_points import JSON_ERROR_ANSWERS
    from app.extensions import csrf

    csrf.exempt(bp)
    JSON_ERROR_ANSWERS.add(app, _answer_if_api)


def _answer_if_api(error: Exception):
    return problem_for(error) if is_api_request() else None


def is_api_request() -> bool:
    return request.path.startswith(bp.url_prefix + "/") or request.path == bp.url_prefix


@bp.errorhandler(problems.Problem)
def _problem(error: problems.Problem):
    return error.response()


@bp.after_request
def _never_cached(response):
    response.headers["Cache-Control"] = "no-store"
    response.headers.setdefault("Vary", "Authorization")
    return response


def problem_for(error: Exception):
    """The problem+json answer for any error raised on an API route (called by app.errors)."""
    from app.errors import PortalError

    if isinstance(error, problems.Problem):
        return error.response()
    if isinstance(error, PortalError):
        return problems.from_portal_error(error).response()
    if isinstance(error, HTTPException):
        return problems.from_http_error(error).response()
    return problems.Problem("server-error", str(problems.KINDS["server-error"][1])).response()
