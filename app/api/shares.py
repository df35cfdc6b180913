"""Who a deployment is shared with, for scripts: list the shares, share with a person or a
group (``PUT``: 201 new, 200 changed), stop sharing (``DELETE``: 204), through the operations
the deployment's page uses. Listing needs ``deployments:read`` and whatever lets the caller see
the deployment; changing needs ``deployments:write``, and only its owner, operators and admins
may (anyone else is answered 404, as for a deployment they cannot see)."""

from __future__ import annotations

from flask import Response, jsonify

from app.api import bp
from app.api.auth import caller, requires
from app.api.bodies import read_body
from app.api.openapi import operation
from app.api.share_schemas import ShareList, ShareRequest
from app.deployments import access, sharing
from app.deployments.access import Action


def _items(shares: list[sharing.Share]) -> dict:
    return {"items": [{"kind": s.kind, "name": s.name, "role": s.role} for s in shares]}


@bp.get("/deployments/<int:deployment_id>/shares")
@requires("deployments:read")
@operation(
    "Who the deployment is shared with, and as what (viewer or co-owner)",
    response=ShareList,
    problems=("not-found",),
)
def list_shares(deployment_id: int):
    deployment = access.deployment_for(caller().user, deployment_id, Action.VIEW)
    return jsonify(ShareList().dump(_items(sharing.shares_of(deployment))))


def _put(kind: str, name: str, deployment_id: int):
    user = caller().user
    deployment = access.deployment_for(user, deployment_id, Action.SHARE)
    body = read_body(ShareRequest())
    created, shares = sharing.share(user, deployment, kind, name, body["role"])
    # The shares as this change left them: what was current when it was made.
    response = jsonify(ShareList().dump(_items(shares)))
    response.status_code = 201 if created else 200
    return response


def _delete(kind: str, name: str, deployment_id: int):
    user = caller().user
    deployment = access.deployment_for(user, deployment_id, Action.SHARE)
    sharing.unshare(user, deployment, kind, name)
    return Response(status=204)


_PUT = {
    "response": ShareList,
    "body": ShareRequest,
    "problems": ("bad-request", "not-found"),
    "description": "201 when the share is new, 200 when its role changed or stayed; the answer "
    "lists every share. Only the owner, operators and admins may change shares.",
}
_DELETE = {
    "status": 204,
    "problems": ("not-found",),
    "description": "Holds from the next request on (pages that poll, tokens, rcp); 204 also "
    "when it was not shared with them.",
}


@bp.put("/deployments/<int:deployment_id>/shares/users/<username>")
@requires("deployments:write")
@operation("Share the deployment with a person, as viewer or co-owner", **_PUT)
def share_with_user(deployment_id: int, username: str):
    return _put("user", username, deployment_id)


@bp.put("/deployments/<int:deployment_id>/shares/groups/<path:group>")
@requires("deployments:write")
@operation("Share the deployment with a group its owner is in", **_PUT)
def share_with_group(deployment_id: int, group: str):
    return _put("group", group, deployment_id)


@bp.delete("/deployments/<int:deployment_id>/shares/users/<username>")
@requires("deployments:write")
@operation("Stop sharing the deployment with a person", **_DELETE)
def unshare_user(deployment_id: int, username: str):
    return _delete("user", username, deployment_id)


@bp.delete("/deployments/<int:deployment_id>/shares/groups/<path:group>")
@requires("deployments:write")
@operation("Stop sharing the deployment with a group", **_DELETE)
def unshare_group(deployment_id: int, group: str):
    return _delete("group", group, deployment_id)
