"""API errors as ``application/problem+json`` (RFC 9457): a stable ``type`` per kind of error, and
the same sentence for a person as the page shows, taken from the same exception.

Every kind is listed in ``KINDS`` (the OpenAPI document describes them from there); a type is
``<portal>/api/v1/problems/<kind>``, a page that explains the kind.
"""

from __future__ import annotations

from typing import Any

from flask import Response, json, request
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import HTTPException

from app.api.links import absolute_url
from app.deployments.errors import DeploymentError, LaunchError, TooManyLaunches
from app.errors import NotAllowed, NotFound, PortalError
from app.launch.decision import NoSiteRoom
from app.leases.errors import ExtendRefused
from app.quotas.errors import KeptForLine, OverBudget, QuotaExceeded

MEDIA_TYPE = "application/problem+json"

# kind: (HTTP status, title). The kind names are part of the API: never rename one.
KINDS: dict[str, tuple[int, Any]] = {
    "bad-request": (400, _l("The request could not be understood")),
    "unauthenticated": (401, _l("A valid access token is needed")),
    "missing-scope": (403, _l("The token does not allow this")),
    "forbidden": (403, _l("You are not allowed to do that")),
    "not-found": (404, _l("Nothing here")),
    "method-not-allowed": (405, _l("That action is not possible here")),
    "launch-pending": (409, _l("An identical launch is still being confirmed")),
    "over-quota": (409, _l("This launch does not fit your quota")),
    "line-ahead": (409, _l("Requests waiting in line come first for what this needs")),
    "no-site-room": (409, _l("No known site has room for this now")),
    "budget": (409, _l("This would overrun a budget")),
    "extend-refused": (409, _l("The lease cannot be extended now")),
    "idempotency-key-in-use": (409, _l("A request with this Idempotency-Key is under way")),
    "idempotency-key-reused": (422, _l("This Idempotency-Key was used for another request")),
    "invalid-parameters": (422, _l("Some values are not valid")),
    "launch-refused": (422, _l("Nothing was launched")),
    "rate-limited": (429, _l("Too many launches")),
    "too-many-attempts": (429, _l("Too many attempts")),
    "orchestrator-failed": (502, _l("The orchestrator could not do it")),
    "server-error": (500, _l("Something went wrong on our side")),
}

# Seconds a client is told to wait after a refused launch: the rate limit counts one minute.
RATE_LIMIT_RETRY_SECONDS = 60


class Problem(Exception):
    """An API error of kind ``kind`` (a key of ``KINDS``) with a sentence for a person.

    ``extra`` adds members to the body (``errors`` per field, ``fit``...); ``headers`` adds
    response headers (``Retry-After``, ``WWW-Authenticate``).
    """

    def __init__(
        self,
        kind: str,
        detail: str,
        *,
        extra: dict | None = None,
        headers: dict | None = None,
        status: int | None = None,
    ):
        super().__init__(detail)
        self.kind = kind
        self.status = status or KINDS[kind][0]
        self.detail = detail
        self.extra = extra or {}
        self.headers = headers or {}

    def body(self) -> dict:
        return {
            "type": type_uri(self.kind),
            "title": str(KINDS[self.kind][1]),
            "status": self.status,
            "detail": self.detail,
            "instance": request.path,
            **self.extra,
        }

    def response(self) -> Response:
        response = Response(json.dumps(self.body()), status=self.status, mimetype=MEDIA_TYPE)
        response.headers.update(self.headers)
        return response


def quota_kind(error: QuotaExceeded) -> str:
    """ "line-ahead" for a launch that fits but is kept for those waiting, else "over-quota"."""
    return "line-ahead" if isinstance(error, KeptForLine) else "over-quota"


def type_uri(kind: str) -> str:
    return absolute_url("api.problem_kind", kind=kind)


def from_portal_error(error: PortalError) -> Problem:
    """The problem an operation's error stands for; the sentence is the error's own message."""
    if isinstance(error, TooManyLaunches):
        return Problem(
            "rate-limited",
            error.message,
            headers={"Retry-After": str(RATE_LIMIT_RETRY_SECONDS)},
        )
    if isinstance(error, ExtendRefused):
        return Problem("extend-refused", error.message)
    if isinstance(error, QuotaExceeded):
        return Problem(quota_kind(error), error.message)
    if isinstance(error, OverBudget):
        return Problem("budget", error.message, extra={"budget": error.numbers()})
    if isinstance(error, NoSiteRoom):
        return Problem("no-site-room", error.message, extra={"can_wait": True})
    if isinstance(error, NotFound):
        return Problem("not-found", error.message)
    if isinstance(error, NotAllowed):
        return Problem("forbidden", error.message)
    if getattr(error, "deployment_id", None) is not None:  # LaunchPending
        return Problem(
            "launch-pending",
            error.message,
            extra={"deployment_id": error.deployment_id},
        )
    if isinstance(error, LaunchError):
        # A choice the caller made (the group) is theirs to fix; anything else came back from
        # the orchestrator or the identity behind the launch.
        status = 422 if error.field else error.status_code
        extra = {"errors": {error.field: [error.message]}} if error.field else None
        return Problem("launch-refused", error.message, status=status, extra=extra)
    if isinstance(error, DeploymentError):
        return Problem("orchestrator-failed", error.message, status=error.status_code)
    return Problem("bad-request", error.message, status=error.status_code)


def from_http_error(error: HTTPException) -> Problem:
    kinds = {400: "bad-request", 401: "unauthenticated", 403: "forbidden", 404: "not-found"}
    kind = kinds.get(error.code or 500, "method-not-allowed" if error.code == 405 else None)
    if kind is None:
        kind = "server-error" if (error.code or 500) >= 500 else "bad-request"
    status = error.code or 500
    # Werkzeug's own descriptions are English; the kind's title says the same in the
    # caller's language. A description given where the error was raised is the portal's.
    own = error.description and error.description != type(error).description
    detail = error.description if own and status != 500 else str(KINDS[kind][1])
    return Problem(kind, detail, status=status)
