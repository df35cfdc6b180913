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

from app.backends.paas.emulator.store import Stored
from app.backends.paas.placement import policy_entries

# DeploymentRequest's fields. Anything else is refused (the real service would ignore it).
REQUEST_FIELDS = frozenset(
    {
        "template",
        "parameters",
        "callback",
        "timeoutMins",
        "providerTimeoutMins",
        "maxProvidersRetry",
        "keepLastAttempt",
        "userGroup",
    }
)


# Spring Data's largest page: bigger sizes are silently cut down to it.
MAX_PAGE_SIZE = 2000
_SORTABLE = {"createdAt": "creationTime", "updatedAt": "updateTime"}

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


def _positive(body: dict, name: str, message: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestRejected(400, f"{name} must be an integer")
    if value < 1:
        raise RequestRejected(400, message)
    return value


def check_request_fields(body: Any) -> dict:
    """Return ``body`` if its fields are a valid DeploymentRequest; raise RequestRejected (400)
    if not. These are the checks made before the request reaches the orchestrator's code, so
    they come before any 404, 403 or 409; the template's own checks come later
    (``check_template``). Null means absent for the optional fields, as there."""
    if not isinstance(body, dict):
        raise RequestRejected(400, "The request body must be a JSON object")
    unknown = sorted(set(body) - REQUEST_FIELDS)
    if unknown:
        raise RequestRejected(
            400,
            f'Unrecognized field "{unknown[0]}" (known fields: '
            f"{', '.join(sorted(REQUEST_FIELDS))})",
        )
    template = body.get("template")
    if not isinstance(template, str):
        raise RequestRejected(400, "A TOSCA template must be provided")
    if "parameters" in body and not isinstance(body["parameters"], dict):
        raise RequestRejected(400, "parameters must be a JSON object")
    callback = body.get("callback")
    if callback is not None and not (isinstance(callback, str) and re.match(r"^https?:", callback)):
        raise RequestRejected(400, "Callback value, if provided, must be a valid HTTP or HTTPS URL")
    _positive(
        body, "timeoutMins", "Overall timeout value, if provided, must be at least of 1 minute"
    )
    _positive(
        body,
        "providerTimeoutMins",
        "Provider timeout value, if provided, must be at "
        "least of 1 minute and equal or less than timeoutMins",
    )
    _positive(
        body, "maxProvidersRetry", "maxProvidersRetry value, if provided, must be at least of 1"
    )
    if body.get("keepLastAttempt") is not None and not isinstance(body["keepLastAttempt"], bool):
        raise RequestRejected(400, "keepLastAttempt must be true or false")
    if body.get("userGroup") is not None and not isinstance(body["userGroup"], str):
        raise RequestRejected(400, "userGroup must be a string")
    return body


def check_template(body: dict, parameters: dict) -> None:
    """The orchestrator's own checks of a create or update, in its order: the template parses,
    every required input has a value (``parameters``: for an update, the stored ones with the
    new merged in), and the provider timeout is within the overall one (compared only when
    both are given). Raises RequestRejected (400)."""
    if not body["template"].strip():
        raise RequestRejected(400, "Failed to parse template: the template is empty")
    tosca = read_template(body["template"])
    _check_inputs(tosca, parameters)
    check_policies(tosca)
    timeout, provider_timeout = body.get("timeoutMins"), body.get("providerTimeoutMins")
    if timeout is not None and provider_timeout is not None and provider_timeout > timeout:
        raise RequestRejected(400, "ProviderTimeout must be <= Timeout")


def check_policies(tosca: dict) -> None:
    """Raise RequestRejected (400) when a policy of the template does not parse: each is a
    named mapping with a ``type`` (where the placement it asks for is read: ``placement``)."""
    topology = tosca.get("topology_template")
    policies = topology.get("policies") if isinstance(topology, dict) else None
    for entry in policy_entries(policies):
        if not isinstance(entry, dict) or len(entry) != 1:
            raise RequestRejected(400, "Failed to parse template: a policy must be a named map")
        [(name, body)] = entry.items()
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            raise RequestRejected(400, f"Failed to parse template: policy {name} must have a type")


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
    """The only input check the real service makes: required inputs have a value or default.

    A value sent as null counts as given: the default is looked up only for absent inputs, so
    a null required input is refused even when it has a default.
    """
    for name, definition in section(tosca, "inputs").items():
        definition = definition if isinstance(definition, dict) else {}
        required = definition.get("required", True) not in (False, "false")
        value = parameters[name] if name in parameters else definition.get("default")
        if required and value is None:
            raise RequestRejected(
                400,
                f"Input <{name}> is required and is not present in the "
                "user's input list, nor has a default value",
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

    # As Spring's paged assembler: first and last only when there is somewhere to go.
    navigable = number > 0 or number < last
    links = [{"rel": "first", "href": href(0)}] if navigable else []
    if number > 0:
        links.append({"rel": "prev", "href": href(number - 1)})
    links.append({"rel": "self", "href": href(number)})
    if number < last:
        links.append({"rel": "next", "href": href(number + 1)})
    if navigable:
        links.append({"rel": "last", "href": href(last)})
    return links


def page(items: list, number: int, size: int) -> dict:
    """Page ``number`` of ``items`` in the orchestrator's envelope (not HAL)."""
    total = len(items)
    return {
        "links": page_links(number, size, total),
        "content": items[number * size : (number + 1) * size],
        "page": {
            "size": size,
            "totalElements": total,
            "totalPages": -(-total // size),
            "number": number,
        },
    }


def paging() -> tuple[int, int]:
    """The ``page`` and ``size`` arguments (size cut down to MAX_PAGE_SIZE)."""
    return int_arg("page", 0, 0), min(int_arg("size", 10, 1), MAX_PAGE_SIZE)


def sorted_rows(rows: list[Stored]) -> list[Stored]:
    """``rows`` in the order of the ``sort`` argument (``createdAt,desc`` by default)."""
    prop, _, direction = request.args.get("sort", "createdAt,desc").partition(",")
    if prop not in _SORTABLE or direction.lower() not in ("", "asc", "desc"):
        # Spring Data only finds out when querying: a server error, not a 400.
        raise RequestRejected(500, f"No property {prop} found for type Deployment!")
    key = _SORTABLE[prop]
    ordered = sorted(enumerate(rows), key=lambda pair: (pair[1].record.get(key, ""), pair[0]))
    result = [row for _, row in ordered]
    return result if direction.lower() == "asc" else result[::-1]
