"""What the orchestrator emulator checks in a request, the page links it builds, and the
outputs it makes up.

Kept apart from the routes so that each stays short; only ``emulator.py`` uses it.
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
# The orchestrator's default overall timeout, in minutes (ten days).
DEFAULT_TIMEOUT_MINS = 14400


@dataclass(frozen=True)
class Identity:
    """Who a bearer token belongs to. ``groups`` is None when the token says nothing of
    groups (then any userGroup is accepted)."""

    subject: str
    issuer: str
    groups: tuple[str, ...] | None = None

    def in_group(self, group: str) -> bool:
        # The INFN fork also accepts "/<group>" taken from wlcg.groups.
        return self.groups is None or group in self.groups or f"/{group}" in self.groups


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
    limit = timeout if timeout is not None else DEFAULT_TIMEOUT_MINS
    if provider_timeout is not None and provider_timeout > limit:
        raise RequestRejected(400, "providerTimeoutMins must be less than or equal to timeoutMins")
    if "keepLastAttempt" in body and not isinstance(body["keepLastAttempt"], bool):
        raise RequestRejected(400, "keepLastAttempt must be true or false")
    if "userGroup" in body and not isinstance(body["userGroup"], str):
        raise RequestRejected(400, "userGroup must be a string")
    _check_inputs(_read_template(template), {**(stored_parameters or {}), **parameters})
    return body


def _read_template(text: str) -> dict:
    try:
        tosca = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise RequestRejected(400, f"Failed to parse template: {error}") from None
    if not isinstance(tosca, dict) or "tosca_definitions_version" not in tosca:
        raise RequestRejected(400, "Failed to parse template: not a TOSCA document")
    return tosca


def _section(tosca: dict, name: str) -> dict:
    topology = tosca.get("topology_template")
    section = topology.get(name) if isinstance(topology, dict) else None
    return section if isinstance(section, dict) else {}


def _check_inputs(tosca: dict, parameters: dict) -> None:
    """The only input check the real service makes: required inputs have a value or default."""
    for name, definition in _section(tosca, "inputs").items():
        definition = definition if isinstance(definition, dict) else {}
        required = definition.get("required", True) not in (False, "false")
        if required and definition.get("default") is None and parameters.get(name) is None:
            raise RequestRejected(
                400, f"Input <{name}> is required and has no value nor default value"
            )


def demo_outputs(template: str) -> dict[str, Any]:
    """Made-up values for the template's outputs, guessed from their names. They use
    reserved documentation names and addresses (.invalid, 192.0.2.0/24) only."""
    try:
        tosca = yaml.safe_load(template)
    except yaml.YAMLError:
        return {}
    outputs = {}
    for name in _section(tosca if isinstance(tosca, dict) else {}, "outputs"):
        lowered = str(name).lower()
        host = re.split(r"[_\-]", lowered)[0] or "service"
        if any(word in lowered for word in ("cred", "password", "secret")):
            outputs[name] = {"user": "cloudadm", "token": "demo-secret-not-a-real-key"}
        elif "ssh" in lowered:
            outputs[name] = "cloudadm@192.0.2.10"
        elif any(word in lowered for word in ("endpoint", "url")):
            outputs[name] = f"https://{host}.demo.invalid/"
        elif "address" in lowered or "ip" in re.split(r"[_\-]", lowered):
            outputs[name] = "192.0.2.10"
        elif "config" in lowered:
            outputs[name] = f"# demo {lowered}\nserver: https://{host}.demo.invalid:6443\n"
        else:
            outputs[name] = f"demo value of {name}"
    return outputs


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
