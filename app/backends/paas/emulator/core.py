"""The emulator's WSGI app: the orchestrator's REST API over the store, rules and lifecycle.

It follows the orchestrator's REST API as published, stricter in one place on purpose: a body
with a field DeploymentRequest lacks is refused with 400, where the real one drops it silently.
"""

from __future__ import annotations

import re
import uuid as uuidlib

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from app.backends.paas import schemas as s
from app.backends.paas.emulator.control import add_control_routes
from app.backends.paas.emulator.faults import FaultMiddleware, Faults, error_response
from app.backends.paas.emulator.lifecycle import (
    Emulator,
    Verifier,
    log_text,
    now_text,
    parameters_of,
    public,
)
from app.backends.paas.emulator.outputs import Topology, is_compute
from app.backends.paas.emulator.rules import (
    GROUP_RULES,
    Identity,
    RequestRejected,
    check_group,
    check_request_fields,
    check_scopes,
    check_template,
    page,
    paging,
    sorted_rows,
)
from app.backends.paas.emulator.store import EmulatorStore, Stored
from app.extension_points import StateKey

__all__ = ["Emulator", "Faults", "Identity", "create_emulator", "emulator_of", "static_tokens"]
_STATE = StateKey("orchestrator emulator")  # the emulator's state on its own app


def static_tokens(tokens: dict[str, Identity]) -> Verifier:
    """A verifier accepting exactly the bearer tokens in ``tokens``."""
    return tokens.get


def emulator_of(app: Flask) -> Emulator:
    """The state of an emulator app built by ``create_emulator`` (tests flip its faults)."""
    return app.extensions[_STATE]


def create_emulator(
    verifier: Verifier | None = None,
    store: EmulatorStore | None = None,
    *,
    complete_after_polls: int | None = 2,
    complete_after_seconds: float | None = None,
    group_rule: str = "given",
    control_secret: str | None = None,
) -> Flask:
    """A WSGI app answering like the orchestrator.

    It accepts the bearer tokens ``verifier`` vouches for and those registered later (control
    API). ``group_rule`` is one of GROUP_RULES; ``control_secret`` enables ``/__emulator__/``.
    Raises ValueError for an unknown ``group_rule``.
    """
    if group_rule not in GROUP_RULES:
        raise ValueError(f"group_rule must be one of {', '.join(GROUP_RULES)}")
    app = Flask(__name__)
    state = Emulator(
        store or EmulatorStore(),
        verifier,
        complete_after_polls,
        complete_after_seconds,
        group_rule,
        control_secret,
    )
    app.extensions[_STATE] = state
    app.wsgi_app = FaultMiddleware(app.wsgi_app, state)

    @app.before_request
    def login():
        if request.path == "/" or request.path.startswith("/__emulator__/"):
            return None
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header[:7].lower() == "bearer " else ""
        identity = state.identify(token) if token else None
        if identity is None:
            message = "Invalid access token" if token else "Full authentication is required"
            return error_response(state.faults, 401, message)
        request.environ["emulator.identity"] = identity
        check_scopes(identity, changing=request.method in ("POST", "PUT", "DELETE", "PATCH"))
        return None

    @app.errorhandler(RequestRejected)
    def rejected(error):
        response = error_response(state.faults, error.status, error.message)
        if error.status == 409 and error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.errorhandler(HTTPException)
    def http_error(error):
        return error_response(state.faults, error.code or 500, error.description or "")

    _add_routes(app, state)
    add_control_routes(app, state)
    return app


def _json_body():
    """The request's JSON; raises RequestRejected as Spring does before any route code runs:
    415 for a body not declared as JSON, 400 for a missing or unreadable one."""
    if not request.is_json:
        kind = request.mimetype or "application/octet-stream"
        raise RequestRejected(415, f"Content type '{kind}' not supported")
    if not request.get_data():
        raise RequestRejected(400, "Required request body is missing")
    body = request.get_json(silent=True)
    if body is None:
        raise RequestRejected(400, "JSON parse error: the request body is not valid JSON")
    return body


def _me() -> Identity:
    return request.environ["emulator.identity"]


def _links(uuid: str) -> list[dict]:
    base = f"{request.host_url}deployments/{uuid}"
    return [
        {"rel": "self", "href": base},
        {"rel": "resources", "href": f"{base}/resources"},
        {"rel": "template", "href": f"{base}/template"},
    ]


def deployment_json(record: dict) -> dict:
    """A stored record as the API shows it, with links for the current request's host."""
    return {**public(record), "links": _links(record["uuid"])}


def _add_routes(app: Flask, state: Emulator) -> None:  # noqa: C901 - one route table
    store = state.store

    def find(uuid: str, *, owner_only: bool = False, count_poll: bool = False) -> Stored:
        """The deployment, as its owner's organisation (here: issuer) may see it; raises
        RequestRejected 404 when unknown or from elsewhere, 403 for non-owners when
        ``owner_only``."""
        me = _me()
        stored = store.get(uuid)
        if stored is not None and stored.issuer == me.issuer:
            stored = state.advance(stored, count_poll)
        else:
            stored = None
        if stored is None:
            raise RequestRejected(404, f"The deployment <{uuid}> doesn't exist")
        if owner_only and (stored.subject, stored.issuer) != (me.subject, me.issuer):
            raise RequestRejected(
                403, "Only the owner of the deployment can perform this operation"
            )
        return stored

    @app.get("/")
    def root():
        href = f"{request.host_url}deployments"
        return jsonify({"links": [{"rel": "deployments", "href": href}]})

    @app.get("/info")
    def info():
        return jsonify(
            {
                "build": {"version": "emulator", "artifact": "orchestrator"},
                "git": {"branch": "emulator"},
            }
        )

    @app.get("/configuration")
    def configuration():
        base = "https://{}.demo.invalid"
        return jsonify(
            {
                key: base.format(name)
                for key, name in (
                    ("cpr_url", "cpr"),
                    ("slam_url", "slam"),
                    ("cmdb_url", "cmdb"),
                    ("im_url", "im"),
                    ("monitoring_url", "monitoring"),
                )
            }
        )

    @app.get("/deployments")
    def list_deployments():
        me = _me()
        # Without createdBy an admin sees everyone's (of the same issuer), others their own.
        created_by = request.args.get("createdBy") or (None if me.admin else "me")
        owner = (me.subject, me.issuer)
        if created_by not in (None, "me") and not re.fullmatch(r"[^@]+@[^@]+", created_by):
            raise RequestRejected(400, f"Value {created_by} for param createdBy is illegal")
        if created_by not in (None, "me", f"{me.subject}@{me.issuer}"):
            if not me.admin:
                raise RequestRejected(403, f"Only admin can retrieve deployments for {created_by}")
            subject, _, issuer = created_by.partition("@")
            owner = (subject, issuer)
        group = request.args.get("userGroup")
        check_group(me, group, state.group_rule, creating=False)
        number, size = paging()
        if created_by is None:
            rows = [
                row
                for row in store.every()
                if row.issuer == me.issuer
                and (group is None or row.record.get("userGroup") == group)
            ]
        else:
            rows = store.owned(*owner, group)
        rows = [moved for row in sorted_rows(rows) if (moved := state.advance(row, False))]
        answer = page(rows, number, size)
        answer["content"] = [deployment_json(row.record) for row in answer["content"]]
        return jsonify(answer)

    @app.post("/deployments")
    def create():
        me = _me()
        body = check_request_fields(_json_body())
        check_group(me, body.get("userGroup"), state.group_rule, creating=True)
        check_template(body, body.get("parameters") or {})
        body = {key: value for key, value in body.items() if value is not None}
        uuid, now = str(uuidlib.uuid1()), now_text()
        # ``outputs`` is never null there, so always shown, empty until the deployment is up.
        record = {
            "uuid": uuid,
            "creationTime": now,
            "updateTime": now,
            "status": s.CREATE_IN_PROGRESS,
            "task": "NONE",
            "outputs": {},
            "createdBy": {"subject": me.subject, "issuer": me.issuer},
        }
        record.update({key: body[key] for key in ("callback", "userGroup") if key in body})
        record["_parameters"] = body.get("parameters", {})
        record["_request"] = {key: value for key, value in body.items() if key != "template"}
        with state.lock:  # "fail the next N creates" counts each create once
            if state.faults.take_create_failure():
                record["_fail"] = True
            store.add(record, body["template"], me.subject, me.issuer)
        return jsonify(deployment_json(record)), 201

    @app.get("/deployments/<uuid>")
    def get(uuid):
        return jsonify(deployment_json(find(uuid, count_poll=True).record))

    @app.put("/deployments/<uuid>")
    def update(uuid):
        body = check_request_fields(_json_body())
        with state.lock:
            stored = find(uuid, owner_only=True)
            kind = stored.record.get("cloudProviderEndpoint", {}).get("deploymentType")
            if kind in ("MARATHON", "CHRONOS", "QCG"):
                raise RequestRejected(400, f"{kind} deployments cannot be updated.")
            status = stored.record["status"]
            if status not in s.UPDATABLE:
                # A plain conflict: only a concurrent-update 409 carries Retry-After.
                raise RequestRejected(409, f"Cannot update a deployment in {status} state")
            merged = {**parameters_of(stored), **(body.get("parameters") or {})}
            check_template(body, merged)
            stored.record["_parameters"] = merged
            stored.record.pop("parameters", None)
            if body.get("callback"):
                stored.record["callback"] = body["callback"]
            state.set_status(uuid, s.UPDATE_IN_PROGRESS, stored=stored)
            return "", 202

    @app.delete("/deployments/<uuid>")
    def delete(uuid):
        with state.lock:
            stored = find(uuid, owner_only=True)
            if request.args.get("force", "false") not in ("true", "false"):
                raise RequestRejected(400, "force must be true or false")
            if stored.record["status"] in (s.DELETE_IN_PROGRESS, s.DELETE_COMPLETE):
                status = stored.record["status"]
                raise RequestRejected(409, f"Deployment already in {status} state.")
            if "cloudProviderName" not in stored.record:
                # No site chosen yet, so nothing to undeploy: removed at once, without a
                # callback; from now on it is unknown (404).
                store.remove(uuid)
                return "", 204
            stored.record["_force"] = request.args.get("force") == "true"
            state.set_status(uuid, s.DELETE_IN_PROGRESS, stored=stored)
            return "", 204

    @app.patch("/deployments/<uuid>")
    def reset(uuid):
        body = _json_body()
        with state.lock:
            stored = find(uuid, owner_only=True)
            wanted = body.get("status") if isinstance(body, dict) else None
            # The status is read as the Status enum without a check: absent or unknown is a
            # server error there; a known one other than DELETE_FAILED is refused.
            if not isinstance(wanted, str) or wanted not in s.KNOWN_STATUSES:
                raise RequestRejected(500, f"No enum constant Status.{wanted}")
            if wanted != s.DELETE_FAILED:
                raise RequestRejected(400, f"Cannot reset deployment: illegal status {wanted}.")
            # Only a delete that is under way (stuck) can be reset.
            if stored.record["status"] != s.DELETE_IN_PROGRESS:
                status = stored.record["status"]
                raise RequestRejected(409, f"Cannot reset a deployment in {status} state")
            state.set_status(uuid, s.DELETE_FAILED, stored=stored)
            return "", 204

    @app.get("/deployments/<uuid>/template")
    def template(uuid):
        return find(uuid).template, 200, {"Content-Type": "text/plain; charset=utf-8"}

    @app.get("/deployments/<uuid>/log")
    def log(uuid):
        stored = find(uuid, owner_only=True)
        return log_text(stored), 200, {"Content-Type": "text/plain; charset=utf-8"}

    @app.get("/deployments/<uuid>/extrainfo")
    def extrainfo(uuid):
        stored = find(uuid, owner_only=True)
        if stored.record["status"] not in (s.CREATE_COMPLETE, s.UPDATE_COMPLETE):
            return "[]", 200, {"Content-Type": "application/json"}
        info = Topology(stored.template, parameters_of(stored), uuid).extrainfo()
        return jsonify(info).get_data(as_text=True), 200, {"Content-Type": "application/json"}

    def resources_of(stored: Stored) -> list[dict]:
        topology = Topology(stored.template, parameters_of(stored), stored.uuid)
        found = topology.resources(
            stored.record["status"], stored.record.get("_states", {}), stored.record["creationTime"]
        )
        base = f"{request.host_url}deployments/{stored.uuid}"
        for resource in found:
            resource["links"] = [
                {"rel": "self", "href": f"{base}/resources/{resource['uuid']}"},
                {"rel": "deployment", "href": base},
            ]
        return found

    @app.get("/deployments/<uuid>/resources")
    def resources(uuid):
        stored = find(uuid)
        # Without keepLastAttempt the resources of a failed create are released.
        released = stored.record["status"] == s.CREATE_FAILED and not stored.record.get(
            "_request", {}
        ).get("keepLastAttempt")
        found = [] if released else resources_of(stored)
        kind = request.args.get("type")
        if kind:
            found = [resource for resource in found if resource["toscaNodeType"] == kind]
        number, size = paging()
        return jsonify(page(found, number, size))

    def one_resource(stored: Stored, resource_id: str, missing: int = 404) -> dict:
        for resource in resources_of(stored):
            if resource["uuid"] == resource_id:
                return resource
        if missing == 404:
            raise RequestRejected(
                404, f"The resource <{resource_id}> in deployment <{stored.uuid}> doesn't exist"
            )
        raise RequestRejected(
            missing, f"Resource <{resource_id}> not found in deployment <{stored.uuid}>"
        )

    @app.get("/deployments/<uuid>/resources/<resource_id>")
    def resource(uuid, resource_id):
        return jsonify(one_resource(find(uuid), resource_id))

    @app.post("/deployments/<uuid>/resources/<resource_id>/actions")
    def action(uuid, resource_id):
        body = _json_body()
        kind = body.get("type") if isinstance(body, dict) and set(body) == {"type"} else None
        if kind not in ("start", "stop"):
            raise RequestRejected(400, 'The body must be {"type": "start"} or {"type": "stop"}')
        with state.lock:
            stored = find(uuid, owner_only=True)
            # In the orchestrator's order: an unknown resource here is a bad request.
            found = one_resource(stored, resource_id, missing=400)
            kind_of = stored.record.get("cloudProviderEndpoint", {}).get("deploymentType")
            if kind_of in ("MARATHON", "CHRONOS", "QCG"):
                raise RequestRejected(400, f"{kind_of} deployment: actions not supported yet.")
            status = stored.record["status"]
            if status not in s.UPDATABLE:
                message = f"Cannot perform actions on deployment in {status} state"
                raise RequestRejected(409, message)
            # Accepted whatever the resource's state: the workflow deals with it.
            node = Topology(stored.template, {}, uuid).nodes.get(found["toscaNodeName"], {})
            if is_compute(node):
                states = stored.record.setdefault("_states", {})
                states[resource_id] = "STARTED" if kind == "start" else "STOPPED"
                store.save(stored)
            return "", 202
