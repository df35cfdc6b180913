"""The emulator's own control API under ``/__emulator__/``: not part of the contract.

Tests use it to register tokens, inject faults, drive deployments and read what happened.
Every call needs the header ``X-Emulator-Secret`` holding the secret the emulator was started
with; without a configured secret the whole prefix answers 404.

| call | body / answer |
|---|---|
| GET ready | ``{"ready": true}`` |
| POST tokens | ``{token, subject, issuer, groups?, wlcg_groups?, admin?, scopes?}`` |
| GET, PUT, DELETE faults | ``faults.Faults``' switches: PUT sets some, DELETE clears |
| GET, PUT settings | ``{complete_after_polls, complete_after_seconds, group_rule, slas}`` |
| GET deployments | every deployment as the API shows it |
| GET deployments/<uuid>/request | the create body as received, template included |
| POST deployments/<uuid>/status | ``{status, reason?}``: move it, calling back if final |
| GET, DELETE requests | the log of API calls: ``[{method, path, query}]`` |
| GET callbacks | the callbacks sent: ``[{url, uuid, status, code or error}]`` |
| POST reset | forget deployments, faults, logs and callbacks (tokens stay) |
"""

from __future__ import annotations

import hmac

from flask import Blueprint, Flask, abort, jsonify, request

from app.backends.paas.emulator.faults import CONTROL_PREFIX
from app.backends.paas.emulator.lifecycle import Emulator, public
from app.backends.paas.emulator.rules import GROUP_RULES, Identity


class ControlError(Exception):
    """A control call with bad input: answered 400 with ``{"error": message}``."""


def _groups(value, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ControlError(f"{name} must be a list of strings")
    return tuple(value)


def _body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ControlError("the body must be a JSON object")
    return body


def add_control_routes(app: Flask, state: Emulator) -> None:
    """Register the control API on the emulator ``app``."""
    bp = Blueprint("emulator_control", __name__, url_prefix=CONTROL_PREFIX.rstrip("/"))

    @bp.before_request
    def guard():
        given = request.headers.get("X-Emulator-Secret", "")
        secret = state.control_secret
        if not secret or not hmac.compare_digest(given.encode(), secret.encode()):
            abort(404)

    @bp.errorhandler(ControlError)
    def bad_input(error):
        return jsonify({"error": str(error)}), 400

    @bp.get("/ready")
    def ready():
        return jsonify({"ready": True})

    @bp.post("/tokens")
    def add_token():
        body = _body()
        token, subject, issuer = body.get("token"), body.get("subject"), body.get("issuer")
        if not all(isinstance(value, str) and value for value in (token, subject, issuer)):
            raise ControlError("token, subject and issuer are required strings")
        if not isinstance(body.get("admin", False), bool):
            raise ControlError("admin must be true or false")
        identity = Identity(
            subject,
            issuer,
            groups=_groups(body.get("groups", []), "groups"),
            wlcg_groups=_groups(body.get("wlcg_groups"), "wlcg_groups"),
            admin=body.get("admin", False),
            scopes=_groups(body.get("scopes"), "scopes"),
        )
        state.tokens[token] = identity
        return jsonify({"token": token, "subject": subject, "issuer": issuer}), 201

    @bp.get("/faults")
    def faults():
        return jsonify(state.faults.as_dict())

    @bp.put("/faults")
    def set_faults():
        try:
            state.faults.update(**_body())
        except ValueError as error:
            raise ControlError(str(error)) from None
        return jsonify(state.faults.as_dict())

    @bp.delete("/faults")
    def clear_faults():
        state.faults.clear()
        return jsonify(state.faults.as_dict())

    @bp.get("/settings")
    def settings():
        return jsonify(
            {
                "complete_after_polls": state.complete_after_polls,
                "complete_after_seconds": state.complete_after_seconds,
                "group_rule": state.group_rule,
                "slas": state.slas,
            }
        )

    @bp.put("/settings")
    def set_settings():
        body = _body()
        known = {"complete_after_polls", "complete_after_seconds", "group_rule", "slas"}
        unknown = set(body) - known
        if unknown:
            raise ControlError(f"unknown settings: {', '.join(sorted(unknown))}")
        if "group_rule" in body and body["group_rule"] not in GROUP_RULES:
            raise ControlError(f"group_rule must be one of {', '.join(GROUP_RULES)}")
        for name in ("complete_after_polls", "complete_after_seconds"):
            value = body.get(name)
            if (
                name in body
                and value is not None
                and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0)
            ):
                raise ControlError(f"{name} must be a number >= 0, or null")
        slas = body.get("slas", {})
        if not isinstance(slas, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in slas.items()
        ):
            raise ControlError("slas must map SLA ids to cloud provider names")
        for name, value in body.items():
            setattr(state, name, value)
        return settings()

    @bp.get("/deployments")
    def deployments():
        base = request.host_url
        return jsonify(
            [
                {
                    **public(row.record),
                    "links": [
                        {"rel": "self", "href": f"{base}deployments/{row.uuid}"},
                        {"rel": "resources", "href": f"{base}deployments/{row.uuid}/resources"},
                        {"rel": "template", "href": f"{base}deployments/{row.uuid}/template"},
                    ],
                }
                for row in state.store.every()
            ]
        )

    @bp.get("/deployments/<uuid>/request")
    def submitted(uuid):
        stored = state.store.get(uuid)
        if stored is None:
            abort(404)
        return jsonify({**stored.record.get("_request", {}), "template": stored.template})

    @bp.post("/deployments/<uuid>/status")
    def set_status(uuid):
        body = _body()
        status, reason = body.get("status"), body.get("reason")
        if not isinstance(status, str) or not status:
            raise ControlError("status is required")
        if reason is not None and not isinstance(reason, str):
            raise ControlError("reason must be a string")
        try:
            state.set_status(uuid, status, reason)
        except KeyError:
            abort(404)
        return jsonify({"uuid": uuid, "status": status})

    @bp.get("/requests")
    def requests_log():
        return jsonify(state.requests.entries())

    @bp.delete("/requests")
    def clear_requests():
        state.requests.clear()
        return jsonify([])

    @bp.get("/callbacks")
    def callbacks():
        return jsonify(state.callbacks.sent())

    @bp.post("/reset")
    def reset():
        with state.lock:
            state.store.clear()
            state.faults.clear()
            state.requests.clear()
            state.callbacks.clear()
        return jsonify({"reset": True})

    app.register_blueprint(bp)
