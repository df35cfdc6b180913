"""What the orchestrator emulator checks in a request (tokens' scopes and groups, the create
body, query arguments) and the page links it builds.

Kept apart from the routes so that each stays short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import yaml
from flask import request

# DeploymentRequest's fields. Anything else is refused (the real service would ignore it).
REQUEST_FIELDS = frozenset({
    "template", "parameters", "callback", "timeoutMins", "providerTimeoutMins",
    "maxProvidersRetry", "keepLastAttempt", "userGroup",
})  # fmt: skip


# How ``userGroup`` is checked. "infn": as the INFN fork does (a create always needs a group the
# token holds; a listing is checked when it names one). "given": checked only when one is sent.
# "indigo": never checked, as upstream.
GROUP_RULES = ("infn", "given", "indigo")


@dataclass(frozen=True)
class Identity:
    """Who a bearer token belongs to, with its ``groups`` and ``wlcg.groups`` claims.

    A claim that is ``None`` is absent from the token. When both are absent the "given" rule
    accepts any group (the demo's tokens say nothing of groups). An ``admin`` may list other
    people's deployments. ``scopes`` None means the token's scopes are not checked.
    """

    subject: str
    issuer: str
    groups: tuple[str, ...] | None = None
    wlcg_groups: tuple[str, ...] | None = None
    admin: bool = False
    scopes: tuple[str, ...] | None = None

    def in_group(self, group: str) -> bool:
        """Whether ``group`` is among the token's groups (or "/"+group among wlcg.groups)."""
        if self.groups is None and self.wlcg_groups is None:
            return True
        return group in (self.groups or ()) or f"/{group}" in (self.wlcg_groups or ())


def check_scopes(identity: Identity, *, changing: bool) -> None:
    """Raise RequestRejected (403) when the token lacks the scopes the call needs: openid and
    profile always, and offline_access for what changes a deployment (the orchestrator
    exchanges it for a refresh token)."""
    if identity.scopes is None:
        return
    needed = {"openid", "profile"} | ({"offline_access"} if changing else set())
    missing = sorted(needed - set(identity.scopes))
    if missing:
        raise RequestRejected(403, f"Insufficient scope for this resource: {', '.join(missing)}")


def check_group(identity: Identity, group: str | None, rule: str, *, creating: bool) -> None:
    """Raise RequestRejected (403) when ``rule`` refuses ``group`` for ``identity``.

    The "infn" rule follows the fork's own check: a token without any group claim is refused,
    and when both claims are present the group must be in each of them.
    """
    if rule == "indigo" or (group is None and not (creating and rule == "infn")):
        return
    if rule == "given":
        if not identity.in_group(group):
            raise RequestRejected(403, f"The group {group} is not in the user's authorized groups")
        return
    groups, wlcg = identity.groups, identity.wlcg_groups
    if not groups and not wlcg:
        raise RequestRejected(403, "User's token does not contain a group claim or it is empty")
    if (groups is not None and group not in groups) or (
        wlcg is not None and f"/{group}" not in wlcg
    ):
        named = "null" if group is None else group
        raise RequestRejected(403, f"The group {named} is not in the user's authorized groups")


class RequestRejected(Exception):
    """The emulator answers ``status`` with ``message`` in the orchestrator's error shape."""

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def _positive(body: dict, name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestRejected(400, f"{name} must be an integer")
    if value < 1:
        raise RequestRejected(400, f"{name} must be greater than or equal to 1")
    return value


def check_deployment_request(body: Any, stored_parameters: dict | None = None) -> dict:
    """Return ``body`` if it is a valid DeploymentRequest; raise RequestRejected (400) if not.

    For an update, ``stored_parameters`` are the deployment's: the new ones are merged in.
    """
    if not isinstance(body, dict):
        raise RequestRejected(400, "The request body must be a JSON object")
    unknown = sorted(set(body) - REQUEST_FIELDS)
    if unknown:
        raise RequestRejected(400, f'Unrecognized field "{unknown[0]}" (known fields: '
                              f'{", ".join(sorted(REQUEST_FIELDS))})')  # fmt: skip
    template = body.get("template")
    if not isinstance(template, str) or not template.strip():
        raise RequestRejected(400, "template: must not be empty")
    parameters = body.get("parameters", {})
    if not isinstance(parameters, dict):
        raise RequestRejected(400, "parameters must be a JSON object")
    callback = body.get("callback")
    if callback is not None and not (isinstance(callback, str) and re.match(r"^https?:", callback)):
        raise RequestRejected(400, 'callback: must match "^https?:"')
    timeout = _positive(body, "timeoutMins")
    provider_timeout = _positive(body, "providerTimeoutMins")
    _positive(body, "maxProvidersRetry")
    # Like the orchestrator, compared only when both are given.
    if timeout is not None and provider_timeout is not None and provider_timeout > timeout:
        raise RequestRejected(400, "ProviderTimeout must be <= Timeout")
    if "keepLastAttempt" in body and not isinstance(body["keepLastAttempt"], bool):
        raise RequestRejected(400, "keepLastAttempt must be true or false")
    if "userGroup" in body and not isinstance(body["userGroup"], str):
        raise RequestRejected(400, "userGroup must be a string")
    _check_inputs(read_template(template), {**(stored_parameters or {}), **parameters})
    return body


def read_template(text: str) -> dict:
    try:
        tosca = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise RequestRejected(400, f"Failed to parse template: {error}") from None
    if not isinstance(tosca, dict) or "tosca_definitions_version" not in tosca:
        raise RequestRejected(400, "Failed to parse template: not a TOSCA document")
    return tosca


def section(tosca: dict, name: str) -> dict:
    topology = tosca.get("topology_template")
    found = topology.get(name) if isinstance(topology, dict) else None
    return found if isinstance(found, dict) else {}


def _check_inputs(tosca: dict, parameters: dict) -> None:
    """The only input check the real service makes: required inputs have a value or default."""
    for name, definition in section(tosca, "inputs").items():
        definition = definition if isinstance(definition, dict) else {}
        required = definition.get("required", True) not in (False, "false")
        if required and definition.get("default") is None and parameters.get(name) is None:
            raise RequestRejected(
                400, f"Input <{name}> is required and has no value nor default value"
            )


def int_arg(name: str, default: int, minimum: int) -> int:
    """The query argument ``name`` as a number; raises RequestRejected (400) if it is not one."""
    raw = request.args.get(name)
    try:
        value = default if raw is None else int(raw)
    except ValueError:
        raise RequestRejected(400, f"{name} must be a number") from None
    if value < minimum:
        raise RequestRejected(400, f"{name} must be at least {minimum}")
    return value


def page_links(number: int, size: int, total: int) -> list[dict]:
    """The first/prev/self/next/last links of page ``number`` of the current list request."""
    last = max(0, -(-total // size) - 1)
    args = {key: value for key, value in request.args.items() if key not in ("page", "size")}

    def href(page: int) -> str:
        return f"{request.base_url}?{urlencode({**args, 'page': page, 'size': size})}"

    links = [{"rel": "first", "href": href(0)}]
    if number > 0:
        links.append({"rel": "prev", "href": href(number - 1)})
    links.append({"rel": "self", "href": href(number)})
    if number < last:
        links.append({"rel": "next", "href": href(number + 1)})
    links.append({"rel": "last", "href": href(last)})
    return links
