"""The caller's quota for scripts: usage against each limit, and what holds it."""

from __future__ import annotations

from flask import jsonify

from app.api import bp, schemas
from app.api.auth import caller, requires
from app.api.launching import bar_of
from app.api.openapi import operation
from app.quotas.operations import usage_details_context, usage_panel_context


@bp.get("/quota")
@requires("quota:read")
@operation(
    "Your quota: what you hold against each limit, and which deployments hold it",
    response=schemas.Quota,
)
def get_quota():
    user = caller().user
    assessment = usage_panel_context(user)["quota"]
    holders = usage_details_context(user)["quota_holders"]
    body = {
        "user": user.username,
        "groups": list(user.groups or []),
        "usage": {
            "group": None,
            "fits": assessment.fits,
            "bars": [bar_of(bar) for bar in assessment.bars],
        },
        "holders": [
            {
                "id": holder.id,
                "name": holder.name,
                "status": holder.status,
                "group": holder.group_name,
                "resources": holder.charge,
            }
            for holder in holders
        ],
    }
    return jsonify(schemas.Quota().dump(body))
