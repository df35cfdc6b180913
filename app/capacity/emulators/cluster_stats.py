"""Cluster statistics in the shape of AI4OS PAPI's ``GET /v1/deployments/stats/cluster``,
served for one emulated site under ``/papi/<site>``: one datacentre, one node per GPU model
(and one without GPUs), RAM and disk in MiB, ``gpu_models`` per node and summed in
``cluster``, and ``updated_at``. A site in maintenance has every node ``ineligible``, which
PAPI reports with used = total. When the statistics stopped being computed more than an hour
ago (``Faults.stalled_since``), it answers 500 as PAPI does.
"""

from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, current_app, jsonify

from app.capacity.emulators.faults import before_answer
from app.capacity.emulators.world import WORLD, EmulatedSite
from app.clock import utcnow

bp = Blueprint("cluster_stats", __name__)
MIB = 1024
STALE_AFTER = timedelta(hours=1)
_RESOURCES = ("cpu", "gpu", "ram", "disk")


@bp.get("/papi/<site>/v1/deployments/stats/cluster")
def stats(site: str):
    world = current_app.extensions[WORLD]
    if (answer := before_answer(world, "cluster-stats")) is not None:
        return answer
    at, sites = world.seen()
    if site not in sites:
        return jsonify({"detail": "Not Found"}), 404
    updated = world.faults.stalled_since or max(at, utcnow() - timedelta(seconds=world.lag_seconds))
    if utcnow() - updated > STALE_AFTER:
        return jsonify({"detail": "Cluster stats have not been updated for more than 1 hour."}), 500
    nodes = _nodes(sites[site])
    return jsonify(
        {
            "datacenters": {
                site: {"lat": 41.1, "lon": 16.9, "PUE": 1.3, "energy_quality": 5, "nodes": nodes}
            },
            "cluster": _sum(nodes.values()),
            "updated_at": updated.isoformat(timespec="seconds") + "Z",
        }
    )


def _node(name: str, cpu, ram, disk, gpus: dict, ineligible: bool) -> dict:
    node = {
        "name": name,
        "cpu_total": cpu[0],
        "cpu_used": cpu[1],
        "ram_total": ram[0] * MIB,
        "ram_used": ram[1] * MIB,
        "disk_total": disk[0] * MIB,
        "disk_used": disk[1] * MIB,
        "gpu_total": sum(t for t, _u in gpus.values()),
        "gpu_used": sum(u for _t, u in gpus.values()),
        "gpu_models": {m: {"gpu_total": t, "gpu_used": u} for m, (t, u) in gpus.items()},
        "jobs_num": 0,
        "eligibility": "ineligible" if ineligible else "eligible",
        "status": "ready",
        "type": "gpu" if gpus else "cpu",
        "tags": [],
    }
    if ineligible:  # as PAPI reports them: nothing left
        for resource in _RESOURCES:
            node[f"{resource}_total"] = node[f"{resource}_used"]
        for numbers in node["gpu_models"].values():
            numbers["gpu_total"] = numbers["gpu_used"]
    return node


def _split(pair, parts: int, index: int):
    """Node ``index``'s share of ``(total, used)`` split over ``parts`` nodes: equal whole
    shares, the first node taking what is left over."""
    return tuple(value // parts + (value % parts if index == 0 else 0) for value in pair)


def _nodes(site: EmulatedSite) -> dict:
    """The site's totals split over a node without GPUs and one node per GPU model."""
    parts = len(site.gpus) + 1
    nodes = {}
    for index, model in enumerate([None, *sorted(site.gpus)]):
        cpu = _split(site.cores, parts, index)
        ram = _split(tuple(int(v) for v in site.ram_gib), parts, index)
        disk = _split(tuple(int(v) for v in site.disk_gib), parts, index)
        gpus = {model: site.gpus[model]} if model else {}
        node_id = f"{site.name.lower()}-node-{index}"
        nodes[node_id] = _node(node_id, cpu, ram, disk, gpus, site.maintenance)
    return nodes


def _sum(nodes) -> dict:
    total: dict = {"gpu_models": {}, "jobs_num": 0}
    for node in nodes:
        for resource in _RESOURCES:
            for end in ("total", "used"):
                key = f"{resource}_{end}"
                total[key] = total.get(key, 0) + node[key]
        for model, numbers in node["gpu_models"].items():
            found = total["gpu_models"].setdefault(model, {"gpu_total": 0, "gpu_used": 0})
            found["gpu_total"] += numbers["gpu_total"]
            found["gpu_used"] += numbers["gpu_used"]
    return total
