"""What can go wrong when talking to the orchestrator: one exception per answer the portal
treats differently, and the single place where HTTP status codes become those exceptions."""

from __future__ import annotations

import requests
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.backends import base


class OrchestratorError(base.BackendError):
    """The orchestrator refused or failed a call. ``message`` can be shown to a person;
    ``status_code`` is the HTTP status, or ``None`` when no answer came. The portal's own
    default words are in the reader's language; the orchestrator's own stay as it sent them."""

    default_message = _l("The orchestrator answered with an error.")


class OrchestratorUnavailable(OrchestratorError, base.Unavailable):
    """No usable answer: connection refused, timed out, or a 5xx status."""

    default_message = _l("The orchestrator is not answering right now.")


class Unreachable(OrchestratorUnavailable, base.Unreachable):
    """The request never reached the orchestrator (connection refused, connect timeout): it
    certainly did nothing. Other OrchestratorUnavailable errors leave that open."""

    default_message = _l("The orchestrator cannot be reached right now.")


class BadRequest(OrchestratorError, base.Refused):
    """400: the request was refused as invalid (missing inputs, bad template...)."""

    default_message = _l("The orchestrator refused the request as invalid.")


class Unauthorized(OrchestratorError, base.Unauthenticated):
    """401: the access token is missing, expired or not trusted."""

    default_message = _l("The orchestrator did not accept the login token.")


class Forbidden(OrchestratorError, base.NotAllowed):
    """403: the token is valid but may not do this (not the owner, not in the group)."""

    default_message = _l("The orchestrator does not allow this.")


class DeploymentNotFound(OrchestratorError, base.NotFound):
    """404: no such deployment (or no such path)."""

    default_message = _l("The orchestrator does not know this deployment.")


class Conflict(OrchestratorError, base.Busy):
    """409: the deployment's state forbids this now. ``retry_after`` is the Retry-After
    header in seconds when the server sent one (0 for a concurrent update)."""

    default_message = _l("The deployment is busy with another operation.")

    def __init__(self, message=None, *, status_code=409, retry_after: int | None = None):
        super().__init__(message, status_code=status_code)
        self.retry_after = retry_after


_BY_STATUS: dict[int, type[OrchestratorError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: DeploymentNotFound,
    409: Conflict,
}


# Error texts longer than this are cut: a validation failure can quote a whole Java
# signature, which helps nobody reading it on a page.
MAX_MESSAGE_LENGTH = 500


def _body(response: requests.Response) -> dict | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def error_message(response: requests.Response) -> str | None:
    """The text of an error body in either shape the orchestrator's side uses:
    ``{code, title, message}`` (the orchestrator) or ``{error, error_description}`` (OAuth
    gateways). ``None`` when the body holds neither."""
    body = _body(response) or {}
    for key in ("message", "error_description", "title", "error"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            if len(value) > MAX_MESSAGE_LENGTH:
                value = value[: MAX_MESSAGE_LENGTH - 1].rstrip() + "\u2026"
            return value
    return None


def _from_orchestrator(response: requests.Response) -> bool:
    """Whether an error answer carries the orchestrator's own error body. Its 404s always do
    (an unknown deployment, and an unknown path too); a bare or HTML 404 comes from a proxy
    or a wrong base URL and says nothing about any deployment."""
    body = _body(response)
    return body is not None and ("code" in body or "message" in body)


def _retry_after(response: requests.Response) -> int | None:
    try:
        return int(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None  # absent, or an HTTP date: callers only care about the seconds form


def raise_for_status(response: requests.Response) -> None:
    """Return if ``response`` is a success (2xx); raise the matching OrchestratorError if not.

    Raises OrchestratorUnavailable for 5xx, BadRequest, Unauthorized, Forbidden,
    DeploymentNotFound (a 404 in the orchestrator's words only) or Conflict for their codes,
    and OrchestratorError for anything else (redirects included).
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    message = error_message(response)
    if 300 <= status < 400:
        raise OrchestratorError(
            _(
                "The orchestrator's address answered with a redirect (%(status)s) to "
                "%(where)s; the portal's ORCHESTRATOR_URL is probably not the orchestrator's "
                "own address.",
                status=status,
                where=response.headers.get("Location") or _("another address"),
            ),
            status_code=status,
        )
    if status == 404 and not _from_orchestrator(response):
        raise OrchestratorError(
            _(
                "The orchestrator's address answered \u201cnot found\u201d without the "
                "orchestrator's own error: a proxy in front of it, or the portal's "
                "ORCHESTRATOR_URL, may be wrong."
            ),
            status_code=status,
        )
    if status >= 500:
        raise OrchestratorUnavailable(
            _("The orchestrator failed (%(status)s): %(said)s", status=status, said=message)
            if message
            else None,
            status_code=status,
        )
    if status == 409:
        raise Conflict(message, retry_after=_retry_after(response))
    error_class = _BY_STATUS.get(status, OrchestratorError)
    raise error_class(message, status_code=status)
