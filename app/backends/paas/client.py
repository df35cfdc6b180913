"""One client for the INDIGO PaaS Orchestrator's REST API.

Every method either returns the decoded answer or raises an ``errors.OrchestratorError``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app import remote
from app.backends import transport
from app.backends.base import masked
from app.backends.paas.errors import (
    Conflict,
    OrchestratorError,
    OrchestratorUnavailable,
    Unreachable,
    raise_for_status,
)
from app.backends.paas.schemas import next_link
from app.instruments import ORCHESTRATOR_ERRORS, ORCHESTRATOR_LATENCY

Timeout = transport.Timeout

# Following ``next`` links stops here even if a faulty server keeps sending them.
_MAX_PAGES = 1000
# Page size asked for when listing: fewer round trips than the default 10.
LIST_PAGE_SIZE = 100
# A 409 carrying Retry-After is the orchestrator's "concurrent update, retry": nothing was
# done, so a call that changes nothing new is sent once more after waiting at most this long.
MAX_CONFLICT_WAIT = 5.0


# The orchestrator's classes and words for what the transport can do wrong.
ERRORS = transport.TransportErrors(
    unreachable=Unreachable,
    unanswered=OrchestratorUnavailable,
    unanswered_message=_l("The orchestrator did not answer in time, or the connection dropped."),
    not_called=OrchestratorError,
    not_called_message=_l("The orchestrator could not be called."),
    unreadable=OrchestratorError,
    unreadable_message=_l("The orchestrator sent an answer the portal cannot read."),
    service=_l("The orchestrator"),
)


class OrchestratorClient:
    """Talks to one orchestrator at ``base_url`` on behalf of one person.

    ``token_provider`` is called before each authenticated call and returns the OIDC access
    token; it is called every time so that a token renewed meanwhile is used. ``timeout`` is
    seconds, or a (connect, read) pair. ``session`` lets tests mount a transport;
    ``session_factory`` makes this client's sessions and those of its ``with_token`` copies
    (the demo's reach the emulator in-process).
    """

    def __init__(
        self,
        base_url: str,
        token_provider: Callable[[], str],
        timeout: Timeout = (5, 30),
        session: requests.Session | None = None,
        *,
        session_factory: Callable[[], requests.Session] = remote.session,
    ):
        self.base_url = base_url.rstrip("/")
        self.token_provider = token_provider
        self.timeout = transport.timeout_pair(timeout)
        self.session = session or session_factory()
        self._session_factory = session_factory
        # The tokens this client has sent: what the orchestrator says is masked with them.
        self.sent_tokens: set[str] = set()

    def with_token(self, token: str) -> OrchestratorClient:
        """A client for the same orchestrator that calls with ``token`` as it is, over a
        session of its own (made like this one's): a requests session is not to be shared
        between threads, and a token read once can be handed to several."""
        return OrchestratorClient(
            self.base_url, lambda: token, self.timeout, session_factory=self._session_factory
        )

    # --- deployments ----------------------------------------------------------------------

    def create_deployment(
        self,
        template: str,
        parameters: dict[str, Any] | None = None,
        *,
        callback: str | None = None,
        user_group: str | None = None,
        timeout_mins: int | None = None,
        provider_timeout_mins: int | None = None,
        max_providers_retry: int | None = None,
        keep_last_attempt: bool | None = None,
    ) -> dict:
        """Submit ``template`` (TOSCA text, imports untouched) with input ``parameters``.

        Returns the new deployment's JSON (status CREATE_IN_PROGRESS). Raises BadRequest for
        an invalid request, Unauthorized, Forbidden, OrchestratorUnavailable.
        """
        optional = {
            "callback": callback,
            "userGroup": user_group,
            "timeoutMins": timeout_mins,
            "providerTimeoutMins": provider_timeout_mins,
            "maxProvidersRetry": max_providers_retry,
            "keepLastAttempt": keep_last_attempt,
        }
        # Only DeploymentRequest fields: the real service drops unknown ones silently.
        # An input sent as null is refused when required even if it has a default (the
        # orchestrator looks the value up before the default); left out, the default applies.
        given = {name: value for name, value in (parameters or {}).items() if value is not None}
        body = {"template": template, "parameters": given}
        body.update({key: value for key, value in optional.items() if value is not None})
        return self._json("POST", "/deployments", json=body)

    def get_deployment(self, uuid: str) -> dict:
        """The deployment's JSON. Raises DeploymentNotFound, Unauthorized, Forbidden,
        OrchestratorUnavailable."""
        return self._json("GET", f"/deployments/{_segment(uuid)}")

    def list_deployments(
        self, created_by: str = "me", user_group: str | None = None, size: int = LIST_PAGE_SIZE
    ) -> list[dict]:
        """Every deployment created by ``created_by`` ("me" or "<subject>@<issuer>"),
        optionally of ``user_group``, across all pages of ``size``. Raises like
        ``get_deployment``."""
        params = {"createdBy": created_by, "size": str(size)}
        if user_group is not None:
            params["userGroup"] = user_group
        return self._all_pages("/deployments", params)

    def _all_pages(self, path: str, params: dict) -> list[dict]:
        items: list[dict] = []
        seen: set[str] = set()
        for _page in range(_MAX_PAGES):
            page = self._json("GET", path, params=params)
            content = page.get("content")
            for item in content if isinstance(content, list) else []:
                if not isinstance(item, dict):
                    continue
                # Pages are cut from a list that may change meanwhile: a deployment created
                # while paging pushes the others one place down, so one may come twice.
                key = item.get("uuid")
                if isinstance(key, str):
                    if key in seen:
                        continue
                    seen.add(key)
                items.append(item)
            href = next_link(page)
            if not href:
                return items
            # Only the query of the link is used: behind a proxy the orchestrator may build
            # links with its internal host, and the token must never travel elsewhere.
            following = dict(parse_qsl(urlsplit(href).query))
            if following == params:
                break  # a "next" page that is this one again would never end
            params = following
        raise OrchestratorError(_("The orchestrator kept sending more pages; gave up."))

    def reset_deployment(self, uuid: str) -> None:
        """Reset a stuck delete (PATCH status DELETE_FAILED), so that it can be retried.

        Raises DeploymentNotFound, Forbidden, BadRequest, Unauthorized, OrchestratorUnavailable.
        """
        self._request("PATCH", f"/deployments/{_segment(uuid)}", json={"status": "DELETE_FAILED"})

    def list_resources(self, uuid: str, size: int = LIST_PAGE_SIZE) -> list[dict]:
        """The deployment's resources (VMs and other nodes), across all pages.
        Raises like ``get_deployment``."""
        return self._all_pages(f"/deployments/{_segment(uuid)}/resources", {"size": str(size)})

    def delete_deployment(self, uuid: str, force: bool | None = None) -> None:
        """Start deleting the deployment (204). ``force`` is the INFN fork's flag.

        Raises DeploymentNotFound, Forbidden, Conflict (already being deleted),
        Unauthorized, OrchestratorUnavailable.
        """
        params = None if force is None else {"force": "true" if force else "false"}
        self._request("DELETE", f"/deployments/{_segment(uuid)}", params=params)

    def get_template(self, uuid: str) -> str:
        """The TOSCA text as submitted. Raises like ``get_deployment``."""
        return self._request("GET", f"/deployments/{_segment(uuid)}/template").text

    def get_log(self, uuid: str) -> str:
        """The contextualisation log (owner only). Raises like ``get_deployment``."""
        return self._request("GET", f"/deployments/{_segment(uuid)}/log").text

    def get_extrainfo(self, uuid: str) -> str:
        """A string holding a JSON array of per-VM information ("[]" if none), owner only.
        Raises like ``get_deployment``."""
        text = self._request("GET", f"/deployments/{_segment(uuid)}/extrainfo").text
        if text.startswith('"'):
            try:  # some servers send the string JSON-encoded
                decoded = json.loads(text)
            except ValueError:
                return text
            return decoded if isinstance(decoded, str) else text
        return text

    def info(self, *, auth: bool = True) -> dict:
        """The service's build information (GET /info; ``auth=False``: sent without a token,
        as the orchestrator answers it to anyone). Raises OrchestratorError."""
        return self._json("GET", "/info", auth=auth)

    # --- transport ------------------------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs) -> dict:
        return transport.decoded(self._request(method, path, **kwargs), ERRORS)

    def _request(self, method: str, path: str, **kwargs) -> requests.Response:
        """Send one call and return the 2xx response; raise an OrchestratorError otherwise.

        A concurrent-update conflict (409 with a short Retry-After) is retried once, except
        for a create: the portal never submits a deployment twice.
        """
        try:
            return self._send(method, path, **kwargs)
        except Conflict as error:
            wait = error.retry_after
            if method == "POST" or wait is None or not 0 <= wait <= MAX_CONFLICT_WAIT:
                raise
        time.sleep(wait)
        return self._send(method, path, **kwargs)

    def _send(self, method: str, path: str, **kwargs) -> requests.Response:
        """Every call goes through here: its latency and failures are measured once, by
        operation ("GET /deployments/{uuid}"), for the operators' dashboards."""
        operation = _operation(method, path)
        started = time.perf_counter()
        try:
            return self._send_once(method, path, **kwargs)
        except OrchestratorError as error:
            ORCHESTRATOR_ERRORS.labels(operation=operation, error=type(error).__name__).inc()
            raise
        finally:
            ORCHESTRATOR_LATENCY.labels(operation=operation).observe(time.perf_counter() - started)

    def _send_once(
        self, method: str, path: str, *, auth: bool = True, **kwargs
    ) -> requests.Response:
        headers = {"Accept": "application/json"}
        if auth:
            token = self.token_provider()
            self.sent_tokens.add(token)
            headers["Authorization"] = f"Bearer {token}"
        response = transport.sent(
            self.session,
            method,
            self.base_url + path,
            errors=ERRORS,
            headers=headers,
            timeout=self.timeout,
            **kwargs,
        )
        try:
            raise_for_status(response)
        except OrchestratorError as error:
            # An orchestrator (or a proxy before it) that echoes the request shows no token.
            error.message = masked(error.message, self.sent_tokens)
            error.args = (error.message,)
            if error.detail:
                error.detail = masked(error.detail, self.sent_tokens)
            raise
        return response

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> OrchestratorClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _operation(method: str, path: str) -> str:
    """``path`` with the deployment id replaced, so that operations are few and fixed."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "deployments":
        parts[2] = "{uuid}"
    return f"{method} {'/'.join(parts)}"


def _segment(uuid: str) -> str:
    """``uuid`` as one path segment; refuses text that would change the path."""
    if not uuid or any(char in uuid for char in "/?#%") or uuid in (".", ".."):
        raise ValueError(f"not a deployment id: {uuid!r}")
    return uuid
