"""The Infrastructure Manager's ``GET /clouds/<cloud id>/quotas``: ``{"quotas": {resource:
{"used", "limit"}}}`` for the emulated site whose ``cloud_id`` it is (RAM and volume storage
in GiB; GPUs of every model together). Like IM, it wants an ``Authorization`` header of auth
lines, and answers 404 for a cloud id it does not know. Each cloud id may be given faults of
its own (``Faults.clouds``), as one cloud's API may fail while IM and the others answer."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from app.capacity.emulators.faults import before_answer
from app.capacity.emulators.world import WORLD

bp = Blueprint("im_quotas", __name__)


@bp.get("/clouds/<cloud_id>/quotas")
def quotas(cloud_id: str):
    world = current_app.extensions[WORLD]
    if (answer := before_answer(world, bp.name, cloud_id)) is not None:
        return answer
    if not request.headers.get("Authorization"):
        return jsonify({"message": "No authentication data provided", "code": 401}), 401
    site = world.site_by_cloud(cloud_id)
    if site is None:
        return jsonify({"message": f"Cloud {cloud_id} not found", "code": 404}), 404

    def pair(numbers):
        return {"used": numbers[1], "limit": numbers[0]}

    gpus = (sum(t for t, _u in site.gpus.values()), sum(u for _t, u in site.gpus.values()))
    found = {
        "cores": pair(site.cores),
        "ram": pair(site.ram_gib),
        "instances": pair(site.instances),
        "floating_ips": {"used": 0, "limit": 10},
        "security_groups": {"used": 1, "limit": 10},
        "volumes": {"used": 0, "limit": 10},
        "volume_storage": pair(site.disk_gib),
    }
    if site.gpus:
        found["gpus"] = pair(gpus)
    return jsonify({"quotas": found})
