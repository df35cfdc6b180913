"""An emulator of the INDIGO PaaS Orchestrator's REST API, for the tests and the demo mode.

It follows the contract in /work/shared/orchestrator-api.md, and is stricter in one place on
purpose: a create or update body with a field DeploymentRequest does not have is refused with
400, where the real service would drop it silently. Deployments move on by themselves: after
``complete_after_polls`` reads of the deployment, or ``complete_after_seconds``, whichever comes
first. Faults (``Faults``) can be switched on to test how the portal copes.
"""

from __future__ import annotations

import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

from app.orchestrator import schemas as s
from app.orchestrator.emulator_rules import (
    Identity,
    RequestRejected,
    check_deployment_request,
    demo_outputs,
    int_arg,
    page_links,
)
from app.orchestrator.emulator_store import EmulatorStore, Stored

__all__ = ["Faults", "Identity", "create_emulator", "emulator_of", "static_tokens"]

Verifier = Callable[[str], Identity | None]
SITE = "provider-DEMO-SITE"
ENDPOINT = {
    "cpEndpoint": "https://openstack.demo.invalid:5000/v3",
    "cpComputeServiceId": "demo-compute-service",
    "deploymentType": "OPENSTACK",
    "region": "demo-region",
}


@dataclass
class Faults:
    """Failures to inject: ``down`` (only the in-process transport can refuse connections),
    ``delay`` seconds before every answer, ``status`` answered to every call (e.g. 500),
    ``gateway_errors`` to answer errors as {error, error_description}, ``fail_creates`` to
    end new deployments in CREATE_FAILED."""

    down: bool = False
    delay: float = 0.0
    status: int | None = None
    gateway_errors: bool = False
    fail_creates: bool = False


@dataclass
class Emulator:
    """One emulator's state: its deployments, who it trusts, and its switches."""

    store: EmulatorStore
    verifier: Verifier
    faults: Faults
    complete_after_polls: int
    complete_after_seconds: float | None


def static_tokens(tokens: dict[str, Identity]) -> Verifier:
    """A verifier accepting exactly the bearer tokens in ``tokens``."""
    return tokens.get


def emulator_of(app: Flask) -> Emulator:
    """The state of an emulator app built by ``create_emulator`` (tests flip its faults)."""
    return app.extensions["orchestrator_emulator"]


def create_emulator(
    verifier: Verifier,
    store: EmulatorStore | None = None,
    *,
    complete_after_polls: int = 2,
    complete_after_seconds: float | None = None,
) -> Flask:
    """A WSGI app answering like the orchestrator, accepting tokens ``verifier`` vouches for."""
    app = Flask(__name__)
    state = Emulator(store or EmulatorStore(), verifier, Faults(), complete_after_polls,
                     complete_after_seconds)  # fmt: skip
    app.extensions["orchestrator_emulator"] = state

    @app.before_request
    def faults_and_login():
        if state.faults.delay:
            time.sleep(state.faults.delay)
        if state.faults.status:
            return _error(state, state.faults.status, "Injected failure")
        if request.path == "/":
            return None
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header[:7].lower() == "bearer " else ""
        identity = state.verifier(token) if token else None
        if identity is None:
            message = "Invalid access token" if token else "Full authentication is required"
            return _error(state, 401, message)
        request.environ["emulator.identity"] = identity
        return None

    @app.errorhandler(RequestRejected)
    def rejected(error):
        response = _error(state, error.status, error.message)
        if error.status == 409 and error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.errorhandler(HTTPException)
    def http_error(error):
        return _error(state, error.code or 500, error.description or "")

    _add_routes(app, state)
    return app


def _error(state: Emulator, status: int, message: str):
    title = HTTP_STATUS_CODES.get(status, "Error")
    if state.faults.gateway_errors:
        body = {"error": title.lower().replace(" ", "_"), "error_description": message}
    else:
        body = {"code": status, "title": title, "message": message}
    response = jsonify(body)
    response.status_code = status
    return response


def _me() -> Identity:
    return request.environ["emulator.identity"]


def _links(uuid: str) -> list[dict]:
    base = f"{request.host_url}deployments/{uuid}"
    return [{"rel": "self", "href": base}, {"rel": "resources", "href": f"{base}/resources"},
            {"rel": "template", "href": f"{base}/template"}]  # fmt: skip


def _now() -> str:
    return s.format_time(datetime.now(UTC))


def _add_routes(app: Flask, state: Emulator) -> None:
    store = state.store

    def find(uuid: str, *, owner_only: bool = False, count_poll: bool = False) -> Stored:
        stored = store.get(uuid)
        if stored is not None:
            stored = _advance(state, stored, count_poll)
        if stored is None:
            raise RequestRejected(404, f"The deployment <{uuid}> doesn't exist")
        me = _me()
        if owner_only and (stored.subject, stored.issuer) != (me.subject, me.issuer):
            raise RequestRejected(403, "You are not the owner of this deployment")
        return stored

    @app.get("/")
    def root():
        href = f"{request.host_url}deployments"
        return jsonify({"links": [{"rel": "deployments", "href": href}]})

    @app.get("/info")
    def info():
        return jsonify({"build": {"version": "emulator", "artifact": "orchestrator"},
                        "git": {"branch": "emulator"}})  # fmt: skip

    @app.get("/configuration")
    def configuration():
        base = "https://{}.demo.invalid"
        return jsonify({key: base.format(name) for key, name in (
            ("cpr_url", "cpr"), ("slam_url", "slam"), ("cmdb_url", "cmdb"), ("im_url", "im"),
            ("monitoring_url", "monitoring"))})  # fmt: skip

    @app.get("/deployments")
    def list_deployments():
        me = _me()
        created_by = request.args.get("createdBy", "me")
        if created_by not in ("me", f"{me.subject}@{me.issuer}"):
            raise RequestRejected(403, "Only administrators may list others' deployments")
        group = request.args.get("userGroup")
        if group is not None and not me.in_group(group):
            raise RequestRejected(403, f"You are not a member of the group {group}")
        number, size = int_arg("page", 0, 0), int_arg("size", 10, 1)
        rows, total = store.page(me.subject, me.issuer, group, number, size)
        content = [dict(_advance(state, row, False).record, links=_links(row.uuid))
                   for row in rows]  # fmt: skip
        return jsonify({"links": page_links(number, size, total), "content": content,
                        "page": {"size": size, "totalElements": total,
                                 "totalPages": -(-total // size), "number": number}})  # fmt: skip

    @app.post("/deployments")
    def create():
        me = _me()
        body = check_deployment_request(request.get_json(silent=True))
        group = body.get("userGroup")
        if group is not None and not me.in_group(group):
            raise RequestRejected(403, f"You are not a member of the group {group}")
        uuid, now = str(uuidlib.uuid1()), _now()
        record = {"uuid": uuid, "creationTime": now, "updateTime": now,
                  "status": s.CREATE_IN_PROGRESS, "task": "NONE",
                  "createdBy": {"subject": me.subject, "issuer": me.issuer}}  # fmt: skip
        record.update({key: body[key] for key in ("callback", "userGroup") if key in body})
        record["parameters"] = body.get("parameters", {})
        store.add(record, body["template"], me.subject, me.issuer)
        return _deployment_json(record, uuid), 201

    @app.get("/deployments/<uuid>")
    def get(uuid):
        stored = find(uuid, count_poll=True)
        return _deployment_json(stored.record, uuid)

    @app.put("/deployments/<uuid>")
    def update(uuid):
        stored = find(uuid, owner_only=True)
        body = check_deployment_request(request.get_json(silent=True),
                                        stored.record.get("parameters"))  # fmt: skip
        if stored.record["status"] not in s.UPDATABLE:
            raise RequestRejected(409, f"Deployment {uuid} cannot be updated while "
                                  f"{stored.record['status']}", retry_after=0)  # fmt: skip
        stored.record["parameters"] = {**stored.record.get("parameters", {}),
                                       **body.get("parameters", {})}  # fmt: skip
        _move(stored, s.UPDATE_IN_PROGRESS, "DEPLOYER")
        store.save(stored)
        return "", 202

    @app.delete("/deployments/<uuid>")
    def delete(uuid):
        stored = find(uuid, owner_only=True)
        if request.args.get("force", "false") not in ("true", "false"):
            raise RequestRejected(400, "force must be true or false")
        if stored.record["status"] in (s.DELETE_IN_PROGRESS, s.DELETE_COMPLETE):
            raise RequestRejected(409, f"Deployment {uuid} is already being deleted")
        _move(stored, s.DELETE_IN_PROGRESS, "DEPLOYER")
        store.save(stored)
        return "", 204

    @app.patch("/deployments/<uuid>")
    def reset(uuid):
        stored = find(uuid, owner_only=True)
        if request.get_json(silent=True) != {"status": s.DELETE_FAILED}:
            raise RequestRejected(400, 'Only {"status": "DELETE_FAILED"} is accepted')
        _move(stored, s.DELETE_FAILED, "NONE")
        store.save(stored)
        return "", 204

    @app.get("/deployments/<uuid>/template")
    def template(uuid):
        return find(uuid).template, 200, {"Content-Type": "text/plain; charset=utf-8"}

    @app.get("/deployments/<uuid>/log")
    def log(uuid):
        stored = find(uuid, owner_only=True)
        text = f"Emulated contextualisation log of {uuid}: {stored.record['status']}\n"
        return text, 200, {"Content-Type": "text/plain; charset=utf-8"}

    @app.get("/deployments/<uuid>/extrainfo")
    def extrainfo(uuid):
        find(uuid, owner_only=True)
        return "[]", 200, {"Content-Type": "application/json"}


def _deployment_json(record: dict, uuid: str):
    shown = {key: value for key, value in record.items() if key != "parameters"}
    return jsonify({**shown, "links": _links(uuid)})


def _move(stored: Stored, status: str, task: str, **fields: Any) -> None:
    stored.record.update(status=status, task=task, updateTime=_now(), **fields)
    stored.record.pop("statusReason", None)
    stored.polls, stored.changed_at = 0, time.time()


def _advance(state: Emulator, stored: Stored, count_poll: bool) -> Stored | None:
    """Move an in-progress deployment on when its time has come; ``None`` once deleted."""
    status = stored.record.get("status")
    if status not in s.IN_PROGRESS:
        return stored
    stored.polls += 1 if count_poll else 0
    waited = time.time() - stored.changed_at
    done = stored.polls >= state.complete_after_polls or (
        state.complete_after_seconds is not None and waited >= state.complete_after_seconds
    )
    if status == s.DELETE_IN_PROGRESS and done:
        state.store.remove(stored.uuid)
        return None
    if status == s.CREATE_IN_PROGRESS and (done or stored.polls or waited >= 1):
        # Brokering has picked a site by the time the deployer runs.
        stored.record.update(task="DEPLOYER", cloudProviderName=SITE,
                             cloudProviderEndpoint=ENDPOINT)  # fmt: skip
    if done and status == s.CREATE_IN_PROGRESS and state.faults.fail_creates:
        _move(stored, s.CREATE_FAILED, "NONE")
        stored.record["statusReason"] = "Emulated failure: no site could host the deployment"
    elif done:
        final = s.CREATE_COMPLETE if status == s.CREATE_IN_PROGRESS else s.UPDATE_COMPLETE
        _move(stored, final, "NONE", physicalId=f"demo-{stored.uuid[:8]}",
              outputs=demo_outputs(stored.template))  # fmt: skip
    state.store.save(stored)
    return stored
