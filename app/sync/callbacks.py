"""The orchestrator's callback: it POSTs a deployment's JSON when its workflow reaches the notify
step. The URL carries the row id and a per-deployment secret, compared in constant time; any
mismatch, a body for another deployment or an unreadable body changes nothing and gets 404/400.
"""

from __future__ import annotations

import hmac
import logging

from flask import Blueprint, abort, request

from app.backends import registry
from app.deployments import operations
from app.deployments.models import Deployment
from app.extensions import csrf, db
from app.instruments import CALLBACKS_RECEIVED, count_callback_refused

log = logging.getLogger(__name__)

bp = Blueprint("deployment_callbacks", __name__, url_prefix="/deployments/callback")


def _deployment(deployment_id: int, secret: str) -> Deployment:
    deployment = db.session.get(Deployment, deployment_id)
    expected = deployment.reference_secret if deployment is not None else None
    # Compared even when there is no such row, so timing tells nothing about which ids exist.
    if not hmac.compare_digest((expected or "-").encode(), secret.encode()) or not expected:
        count_callback_refused("unknown")
        abort(404)
    return deployment


@bp.post("/<int:deployment_id>/<secret>")
@csrf.exempt
def receive(deployment_id: int, secret: str):
    CALLBACKS_RECEIVED.inc()
    deployment = _deployment(deployment_id, secret)
    body = request.get_json(silent=True)
    try:
        state = registry.kind(deployment.backend).read_report(
            body if isinstance(body, dict) else {}
        )
    except ValueError:
        count_callback_refused("unreadable")
        abort(400, "The body must be the deployment's JSON.")
    if deployment.uuid not in (None, state.backend_id) or deployment.deleted:
        log.warning(
            "Callback for deployment %s named another uuid %s", deployment.id, state.backend_id
        )
        count_callback_refused("mismatch")
        abort(404)
    if deployment.uuid is None and db.session.scalar(
        db.select(Deployment.id).where(Deployment.uuid == state.backend_id)
    ):
        count_callback_refused("mismatch")
        abort(404)
    operations.record_callback(deployment, state)
    return "", 204
