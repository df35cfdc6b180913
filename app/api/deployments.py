"""Deployments for scripts: list and read them, launch (or only cost) one, relaunch, delete, and
read the secrets the portal generated, each through the operation the pages use.

Each deployment carries its lease (the leases feature's summary: the same offer and refusal
the page shows), and ``POST /deployments/<id>/lease`` extends it through the operation the
page's Extend button calls.
"""

from __future__ import annotations

from flask import jsonify, request
from flask_babel import gettext as _
from marshmallow import ValidationError

from app.api import bp, dry_run_schemas, launching, schemas
from app.api.auth import caller, requires
from app.api.bodies import read_body
from app.api.idempotency_views import idempotent
from app.api.leases import lease_body
from app.api.links import absolute_url
from app.api.openapi import operation
from app.api.paging import page_links, read_query
from app.api.problems import Problem
from app.api.templates import visible_entry
from app.api.validation import field_errors
from app.deployments import access, operations, presenters, queries, secret_items
from app.deployments.access import Action
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.errors import NotFound
from app.leases import operations as leases
from app.leases.presenters import LeaseSummary, summaries
from app.lines import operations as waiting
from app.lines.presenters import load as line_places
from app.published import published


def _summary(
    deployment: Deployment, owners: dict[int, str], lease: LeaseSummary, places=None
) -> dict:
    return {
        "access": access.why(caller().user, deployment),
        "id": deployment.id,
        "uuid": deployment.uuid,
        "name": deployment.name,
        "template": deployment.template_slug,
        "template_name": deployment.shown_template_name,
        "status": published(deployment.status),
        "status_reason": deployment.status_reason,
        "backend": deployment.backend,
        "group": deployment.group_name,
        "site": deployment.site,
        "owner": owners.get(deployment.user_id, ""),
        "created_at": deployment.created_at,
        "links": {"self": absolute_url(".get_deployment", deployment_id=deployment.id)},
        "lease": lease_body(lease),
        "queue": place.data() if (place := (places or {}).get(deployment.id)) else None,
    }


def _detail(deployment: Deployment) -> dict:
    parsed = presenters.parsed_templates({deployment.revision_id} - {None})
    template = parsed.get(deployment.revision_id)
    secrets = secret_items.secret_items(deployment, template)
    secret_names = {item.name for item in secrets}
    outputs = presenters.shown_outputs([deployment], parsed)[deployment.id]
    people = queries.usernames(
        {event.actor_id for event in deployment.events if event.actor_id} | {deployment.user_id}
    )
    link = presenters.main_link(outputs)
    return {
        **_summary(
            deployment,
            people,
            summaries([deployment])[deployment.id],
            line_places([deployment]),
        ),
        "parameters": dict(deployment.parameters or {}),
        "outputs": {o.name: o.value for o in outputs if o.name not in secret_names},
        "main_link": link.value if link else None,
        "secrets": [item.name for item in secrets if item.name],
        "resources": dict(deployment.charge or {}),
        "timeline": [
            {
                "at": event.at,
                "status": published(event.to_status),
                "previous_status": published(event.from_status),
                "kind": event.kind,
                "source": event.source,
                "actor": people.get(event.actor_id) if event.actor_id else None,
                "reason": event.reason,
            }
            for event in deployment.events
        ],
    }


def detail_answer(deployment: Deployment, status: int = 200):
    response = jsonify(schemas.DeploymentDetail().dump(_detail(deployment)))
    response.status_code = status
    if status == 201 or deployment.status == Status.WAITING:
        response.headers["Location"] = absolute_url(".get_deployment", deployment_id=deployment.id)
    return response


@bp.get("/deployments")
@requires("deployments:read")
@operation(
    "Your deployments (or, with shared=true, those shared with you), filtered and paged as on "
    "My deployments",
    response=schemas.DeploymentPage,
    query=schemas.ListQuery,
    problems=("bad-request",),
)
def list_deployments():
    user = caller().user
    filters, size, sort = read_query(request.args, user)
    listed = queries.list_page(user, filters, size, sort)
    access.marks(user, listed.deployments)  # why the caller sees each, read at once
    owners = queries.usernames({d.user_id for d in listed.deployments})
    leased = summaries(listed.deployments)
    places = line_places(listed.deployments)
    body = {
        "items": [_summary(d, owners, leased[d.id], places) for d in listed.deployments],
        "page": listed.page,
        "size": listed.size,
        "total": listed.total,
        "pages": listed.pages,
        "links": page_links(".list_deployments", listed, request.args),
    }
    return jsonify(schemas.DeploymentPage().dump(body))


@bp.get("/deployments/<int:deployment_id>")
@requires("deployments:read")
@operation(
    "One deployment: status, timeline, outputs, resources, lease",
    response=schemas.DeploymentDetail,
    problems=("not-found",),
)
def get_deployment(deployment_id: int):
    return detail_answer(operations.visible_deployment(caller().user, deployment_id))


@bp.post("/deployments")
@requires("deployments:write")
@operation(
    "Launch a deployment, or with dry_run=true only check, cost and fit it",
    description=(
        "Omitted parameters take the template's defaults; omitted generated secrets are "
        "generated. With dry_run=true the answer is 200 with cost and fit (DryRun), each "
        "site's verdict for the request (sites: fits, may-not-fit or does-not-fit, the binding "
        "constraint in words, the numbers' source and age), and nothing changes. site picks "
        "where to deploy (one of the dry run's sites; null leaves it to the portal): an "
        "unknown site, or one the template's service does not reach, is refused (422, "
        "launch-refused, errors.site); so is a launch the template's service refuses, with "
        "its reason (422, launch-refused). The dry run's outcome and kind say what the launch "
        "would do, charging the same group (the first of the caller's when none is given). "
        "With wait=true a launch short only of what running deployments hold, or that no "
        "known site has room for, waits in line: 202, status WAITING, and its place in line "
        "under queue (201 when it fits now). Without it, over-quota says can_wait; a launch that "
        "fits but would take what requests already waiting in line wait for is refused with "
        "line-ahead, and one that every known site whose numbers are fresh says does not fit "
        "with no-site-room (409, can_wait true; the dry run's line_ahead and no_room say so "
        "beforehand). Stale or unknown numbers never hold a launch back."
    ),
    response=schemas.DeploymentDetail,
    status=201,
    query=schemas.LaunchQuery,
    body=schemas.LaunchRequest,
    headers={"Location": "The new deployment's address"},
    problems=(
        "bad-request",
        "forbidden",
        "not-found",
        "invalid-parameters",
        "launch-refused",
        "over-quota",
        "line-ahead",
        "no-site-room",
        "budget",
        "launch-pending",
        "idempotency-key-in-use",
        "idempotency-key-reused",
        "rate-limited",
        "orchestrator-failed",
    ),
)
@idempotent
def launch():
    user = caller().user
    body = read_body(schemas.LaunchRequest())
    entry = visible_entry(user, body["template"])
    if _dry_run():
        result = launching.dry_run(user, entry, body["parameters"], body["group"], body["site"])
        return jsonify(dry_run_schemas.DryRun().dump(result))
    deployment = launching.launch(
        user,
        entry,
        body["parameters"],
        name=body["name"],
        group=body["group"],
        site=body["site"],
        wait=body["wait"],
    )
    # Waiting in line: accepted, to be launched when its turn comes.
    return detail_answer(deployment, 202 if deployment.status == Status.WAITING else 201)


def _dry_run() -> bool:
    try:
        return schemas.LaunchQuery().load(request.args)["dry_run"]
    except ValidationError as error:
        raise Problem(
            "bad-request",
            _("dry_run is true or false."),
            extra={"errors": field_errors(error.messages)},
        ) from error


@bp.post("/deployments/<int:deployment_id>/relaunch")
@requires("deployments:write")
@operation(
    "Launch the same template with the same settings again, under a new name",
    response=schemas.DeploymentDetail,
    status=201,
    body=schemas.RelaunchRequest,
    headers={"Location": "The new deployment's address"},
    problems=(
        "bad-request",
        "forbidden",
        "not-found",
        "launch-refused",
        "over-quota",
        "line-ahead",
        "no-site-room",
        "budget",
        "launch-pending",
        "idempotency-key-in-use",
        "idempotency-key-reused",
        "rate-limited",
        "orchestrator-failed",
    ),
)
@idempotent
def relaunch(deployment_id: int):
    user = caller().user
    body = read_body(schemas.RelaunchRequest())
    deployment = operations.visible_deployment(user, deployment_id, Action.RELAUNCH)
    launched = launching.relaunch(user, deployment, name=" ".join(body["name"].split()))
    return detail_answer(launched, 201)


@bp.delete("/deployments/<int:deployment_id>")
@requires("deployments:write")
@operation(
    "Delete a deployment (its resources are freed; it leaves the list once gone)",
    response=schemas.DeploymentDetail,
    status=202,
    query=schemas.DeleteRequest,
    problems=("not-found", "orchestrator-failed"),
)
def delete_deployment(deployment_id: int):
    user = caller().user
    try:
        force = schemas.DeleteRequest().load(request.args)["force"]
    except ValidationError as error:
        raise Problem(
            "bad-request",
            _("force is true or false."),
            extra={"errors": field_errors(error.messages)},
        ) from error
    deployment = operations.visible_deployment(user, deployment_id, Action.DELETE)
    if deployment.status == Status.WAITING:
        waiting.leave(user, deployment)  # leaves the line: nothing was launched
    else:
        operations.delete(user, deployment, force=force)
    return detail_answer(deployment, 202)


@bp.post("/deployments/<int:deployment_id>/secrets")
@requires("deployments:read")
@operation(
    "The passwords the portal generated and the secret outputs, for its owner and co-owners",
    response=schemas.Secrets,
    problems=("not-found",),
)
def reveal_secrets(deployment_id: int):
    user = caller().user
    deployment = operations.visible_deployment(user, deployment_id, Action.REVEAL)
    values = operations.reveal_secrets(user, deployment)
    plain = deployment.outputs or {}
    parsed = presenters.parsed_templates({deployment.revision_id} - {None})
    template = parsed.get(deployment.revision_id)
    for item in secret_items.secret_items(deployment, template):
        # Secret outputs an older record kept in plain text are revealed the same way.
        if item.kind == "output" and item.name in plain and item.name not in values:
            values[item.name] = presenters.as_text(plain[item.name])
    return jsonify(schemas.Secrets().dump({"values": values}))


@bp.post("/deployments/<int:deployment_id>/lease")
@requires("deployments:write")
@operation(
    "Extend a deployment's lease, as the Extend button on its page does",
    description=(
        "Adds the policy's extend step when extending is open (see lease.can_extend and "
        "lease.extend_refusal); an empty body is enough. Operators and admins may extend past "
        "the policy with past_policy, hours and a reason; the owner is told. An operator "
        "who cannot read the deployment is answered its id, name, status, owner and lease only."
    ),
    response=schemas.DeploymentDetail,
    body=schemas.ExtendRequest,
    problems=(
        "bad-request",
        "forbidden",
        "not-found",
        "extend-refused",
        "idempotency-key-in-use",
        "idempotency-key-reused",
    ),
)
@idempotent
def extend_lease(deployment_id: int):
    user = caller().user
    schema = schemas.ExtendRequest()
    body = read_body(schema) if request.get_data() else schema.load({})
    if body["past_policy"] and not (user.is_operator or user.is_admin):
        raise Problem(
            "forbidden", _("Only operators and administrators extend a lease past its policy.")
        )
    hours = body["hours"]
    lease = leases.extend(
        user,
        deployment_id,
        override=body["past_policy"],
        by=hours * 60 if hours is not None else None,
        reason=body["reason"],
    )
    # The operation checked who may extend (the owner, admins, operators past the policy); an
    # operator extending someone else's deployment is answered only what operators may see.
    try:
        return detail_answer(operations.visible_deployment(user, deployment_id))
    except NotFound:
        return jsonify(schemas.DeploymentSummary().dump(_lease_only(lease.deployment)))


def _lease_only(deployment: Deployment) -> dict:
    """What an operator may see of a deployment they cannot read: whose it is, its name and
    status, and its lease (as on the operators' pages); no parameters, outputs or timeline."""
    owners = queries.usernames({deployment.user_id})
    summary = _summary(deployment, owners, summaries([deployment])[deployment.id])
    return {key: summary[key] for key in ("id", "name", "status", "owner", "lease")}
