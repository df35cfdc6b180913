"""The Federation Registry's ``GET /api/v1/projects?with_conn=true``, in its public shape:
one project per emulated site, with its provider, its flavours and its quotas in pairs
(``usage: false`` the limit, ``usage: true`` the use), each pointing to its service and the
service's region. A compute quota carries ``gpus`` only where the site has GPUs (the
registry's Kubernetes branch). Without a bearer token the registry shows its public subset:
no numbers. A site in maintenance is a provider whose ``status`` is ``maintenance``.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from app.capacity.emulators.faults import before_answer
from app.capacity.emulators.world import WORLD, EmulatedSite

bp = Blueprint("fedreg", __name__)
_NUMBERS = {"cores", "instances", "ram", "gpus", "gigabytes", "volumes", "per_volume_gigabytes"}


@bp.get("/api/v1/projects")
def projects():
    world = current_app.extensions[WORLD]
    if (answer := before_answer(world, "fedreg")) is not None:
        return answer
    full = request.headers.get("Authorization", "").startswith("Bearer ") or current_app.config.get(
        "FEDREG_OPEN_TO_ANONYMOUS"
    )
    found = [_project(site) for site in world.seen()[1].values()]
    if not full:
        for project in found:
            project["quotas"] = [
                {k: v for k, v in quota.items() if k not in _NUMBERS} for quota in project["quotas"]
            ]
    return jsonify(found)


def _service(site: EmulatedSite, kind: str) -> dict:
    return {
        "uid": f"{site.name}-{kind}",
        "endpoint": f"https://{site.name.lower()}.example.org/{kind}",
        "type": kind,
        "name": f"org.openstack.{'nova' if kind == 'compute' else 'cinder'}",
        "regions": [{"uid": f"{site.name}-{site.region}", "name": site.region}],
    }


def _project(site: EmulatedSite) -> dict:
    gpus_total = sum(total for total, _used in site.gpus.values())
    gpus_used = sum(used for _total, used in site.gpus.values())
    limit = {
        "cores": site.cores[0],
        "instances": site.instances[0],
        "ram": int(site.ram_gib[0] * 1024),
    }
    usage = {
        "cores": site.cores[1],
        "instances": site.instances[1],
        "ram": int(site.ram_gib[1] * 1024),
    }
    if site.gpus:
        limit["gpus"], usage["gpus"] = gpus_total, gpus_used
    compute, block = _service(site, "compute"), _service(site, "block-storage")
    return {
        "uid": f"project-{site.name}",
        "name": "gpu-users",
        "uuid": f"uuid-{site.name}",
        "description": "",
        "provider": {
            "uid": f"provider-{site.name}",
            "name": site.name,
            "type": "openstack",
            "status": "maintenance" if site.maintenance else "active",
            "is_public": False,
            "support_emails": [f"support@{site.name.lower()}.example.org"],
        },
        "flavors": [
            {
                "uid": f"flavor-{site.name}-{model}",
                "name": f"gpu-{index}",
                "vcpus": 8,
                "ram": 32768,
                "disk": 80,
                "gpus": 1,
                "gpu_model": model,
                "gpu_vendor": "NVIDIA",
                "infiniband": False,
                "is_shared": False,
            }
            for index, model in enumerate(sorted(site.gpus))
        ],
        "quotas": [
            {"type": "compute", "per_user": False, "usage": False, **limit, "service": compute},
            {"type": "compute", "per_user": False, "usage": True, **usage, "service": compute},
            {
                "type": "block-storage",
                "per_user": False,
                "usage": False,
                "gigabytes": int(site.disk_gib[0]),
                "service": block,
            },
            {
                "type": "block-storage",
                "per_user": False,
                "usage": True,
                "gigabytes": int(site.disk_gib[1]),
                "service": block,
            },
        ],
    }
