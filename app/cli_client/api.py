"""One client for the portal's JSON API: one requests.Session, explicit timeouts (the whole
answer within their sum, ``app.remote``), TLS verified, and every problem answer turned into
one of three named errors (see ``main`` for exit codes)."""

from __future__ import annotations

from typing import Any

import requests

from app import remote

TIMEOUT = (5, 60)
# A whole answer of the portal's API: far above its longest listing.
MAX_ANSWER_BYTES = 64 * 1024 * 1024


class ApiError(Exception):
    """The portal answered with a problem, or could not be reached; ``message`` is for people."""

    exit_code = 1

    def __init__(self, message: str, problem: dict | None = None):
        super().__init__(message)
        self.message = message
        self.problem = problem or {}

    @property
    def kind(self) -> str:
        return str(self.problem.get("type", "")).rsplit("/", 1)[-1]


class Refused(ApiError):
    """The portal refused: no or a bad token, a missing scope, invalid values, over quota..."""

    exit_code = 3


class NotFound(ApiError):
    exit_code = 4


class Failed(ApiError):
    """The portal or the orchestrator failed, or could not be reached."""

    exit_code = 1


class Unavailable(ApiError):
    """The portal does not offer this action."""

    exit_code = 5


class Portal:
    def __init__(self, url: str, token: str):
        self.base = f"{url}/api/v1"
        self.session = remote.session()
        self.session.headers.update(
            {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        )

    def call(self, method: str, path: str, **kwargs) -> Any:
        try:
            answer = remote.bounded(
                lambda **streaming: self.session.request(
                    method, self.base + path, timeout=TIMEOUT, **streaming, **kwargs
                ),
                deadline=remote.deadline_of(TIMEOUT),
                max_bytes=MAX_ANSWER_BYTES,
            )
        except requests.RequestException as error:
            raise Failed(f"Could not reach the portal at {self.base}: {error}") from error
        if answer.status_code < 400:
            return answer.json() if answer.content else None
        raise _error(answer)

    def get(self, path: str, **params) -> Any:
        return self.call("GET", path, params={k: v for k, v in params.items() if v})

    def post(self, path: str, body: Any = None, key: str | None = None, **params) -> Any:
        headers = {"Idempotency-Key": key} if key else {}
        return self.call("POST", path, json=body, headers=headers, params=params)

    def put(self, path: str, body: Any) -> Any:
        return self.call("PUT", path, json=body)

    def delete(self, path: str) -> Any:
        return self.call("DELETE", path)

    def exists(self, method: str, path: str) -> bool:
        """Whether the portal has the route (its OpenAPI document lists it)."""
        document = self.call("GET", "/openapi.json")
        return method.lower() in document.get("paths", {}).get(path, {})


def _error(answer: requests.Response) -> ApiError:
    try:
        problem = answer.json()
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    message = problem.get("detail") or f"The portal answered {answer.status_code}."
    for field, messages in (problem.get("errors") or {}).items():
        message += f"\n  {field or 'request'}: {' '.join(messages)}"
    if problem.get("can_wait"):
        message += "\nIt may wait in line instead: launch again with --wait-in-line."
    if answer.status_code == 404:
        return NotFound(message, problem)
    if answer.status_code == 405:
        return Unavailable(message, problem)
    if answer.status_code >= 500:
        return Failed(message, problem)
    return Refused(message, problem)
