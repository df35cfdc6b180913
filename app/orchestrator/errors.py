"""What can go wrong when talking to the orchestrator: one exception per answer the portal
treats differently, and the single place where HTTP status codes become those exceptions."""

from __future__ import annotations

import requests


class OrchestratorError(Exception):
    """The orchestrator refused or failed a call. ``message`` can be shown to a person;
    ``status_code`` is the HTTP status, or ``None`` when no answer came."""

    default_message = "The orchestrator answered with an error."

    def __init__(self, message: str | None = None, *, status_code: int | None = None):
        self.message = message or self.default_message
        self.status_code = status_code
        super().__init__(self.message)


class OrchestratorUnavailable(OrchestratorError):
    """No usable answer: connection refused, timed out, or a 5xx status."""

    default_message = "The orchestrator is not answering right now."


class Unreachable(OrchestratorUnavailable):
    """The request never reached the orchestrator (connection refused, connect timeout): it
    certainly did nothing. Other OrchestratorUnavailable errors leave that open."""

    default_message = "The orchestrator cannot be reached right now."


class BadRequest(OrchestratorError):
    """400: the request was refused as invalid (missing inputs, bad template...)."""

    default_message = "The orchestrator refused the request as invalid."


class Unauthorized(OrchestratorError):
    """401: the access token is missing, expired or not trusted."""

    default_message = "The orchestrator did not accept the login token."


class Forbidden(OrchestratorError):
    """403: the token is valid but may not do this (not the owner, not in the group)."""

    default_message = "The orchestrator does not allow this."


class DeploymentNotFound(OrchestratorError):
    """404: no such deployment (or no such path)."""

    default_message = "The orchestrator does not know this deployment."


class Conflict(OrchestratorError):
    """409: the deployment's state forbids this now. ``retry_after`` is the Retry-After
    header in seconds when the server sent one (0 for a concurrent update)."""

    default_message = "The deployment is busy with another operation."

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


def error_message(response: requests.Response) -> str | None:
    """The text of an error body in either shape the orchestrator's side uses:
    ``{code, title, message}`` (the orchestrator) or ``{error, error_description}`` (OAuth
    gateways). ``None`` when the body holds neither."""
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    for key in ("message", "error_description", "title", "error"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _retry_after(response: requests.Response) -> int | None:
    try:
        return int(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None  # absent, or an HTTP date: callers only care about the seconds form


def raise_for_status(response: requests.Response) -> None:
    """Return if ``response`` is a success (2xx); raise the matching OrchestratorError if not.

    Raises OrchestratorUnavailable for 5xx, BadRequest, Unauthorized, Forbidden,
    DeploymentNotFound or Conflict for their codes, and OrchestratorError for anything else.
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    message = error_message(response)
    if status >= 500:
        raise OrchestratorUnavailable(
            f"The orchestrator failed ({status}): {message}" if message else None,
            status_code=status,
        )
    if status == 409:
        raise Conflict(message, retry_after=_retry_after(response))
    error_class = _BY_STATUS.get(status, OrchestratorError)
    raise error_class(message, status_code=status)
