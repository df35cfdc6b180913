"""Cluster statistics in the shape of AI4OS PAPI's ``GET /v1/deployments/stats/cluster``.

The answer gives, per datacentre and node, CPU, RAM, disk and GPU totals and what is used,
GPUs per model (``gpu_models`` with ``gpu_total`` and ``gpu_used``), a ``cluster`` sum of
the same, and ``updated_at``. RAM and disk are in MiB. Ineligible nodes report used = total,
so they add nothing free. PAPI answers 500 when its numbers are more than an hour old. The
whole answer describes one site: the one the setting's ``site`` names. What each usable node
has free is kept with the sums: a machine of a request runs on one node.
"""

from __future__ import annotations

from flask import current_app
from flask_babel import gettext as _

from app.capacity.gpu_names import by_portal_model
from app.capacity.snapshot import NodeFree
from app.capacity.sources.base import SiteReading, Source, SourceUnreadable, bounded, get_json

PATH = "/v1/deployments/stats/cluster"
MIB_PER_GIB = 1024


class ClusterStats(Source):
    kind = "cluster-stats"

    def read(self) -> list[SiteReading]:
        settings = self.settings
        params = {"vo": settings.options["vo"]} if settings.options.get("vo") else None
        who = _("The cluster statistics of %(site)s", site=settings.options["site"])
        answer = get_json(settings.url + PATH, who=who, timeout=settings.timeout, params=params)
        nodes = _nodes(answer, who)
        return [_reading(settings.options["site"], nodes)]


def _nodes(answer, who: str) -> list[dict]:
    datacentres = answer.get("datacenters") if isinstance(answer, dict) else None
    if not isinstance(datacentres, dict):
        raise SourceUnreadable(_("%(source)s's answer names no datacentres.", source=who))
    nodes = []
    for datacentre in datacentres.values():
        found = datacentre.get("nodes") if isinstance(datacentre, dict) else None
        if not isinstance(found, dict):
            raise SourceUnreadable(
                _("%(source)s's answer has a datacentre without nodes.", source=who)
            )
        nodes.extend(node for node in found.values() if isinstance(node, dict))
    return nodes


def _left(node: dict, resource: str) -> float:
    total, used = node.get(f"{resource}_total"), node.get(f"{resource}_used")
    total, used = bounded(total), bounded(used)
    if total is None or used is None:
        return 0.0
    return max(total - used, 0.0)


def _usable(node: dict) -> bool:
    return node.get("eligibility", "eligible") != "ineligible" and node.get("status", "") not in (
        "down",
        "disconnected",
    )


def _node_gpus(node: dict, names) -> dict[str, int]:
    """The node's free GPUs per portal model; GPUs it counts without a model: the unknown
    model."""
    models = node.get("gpu_models") or {}
    gpus: dict[str, int] = {}
    for model, numbers in models.items() if isinstance(models, dict) else ():
        gpus[model] = int(_left(numbers, "gpu")) if isinstance(numbers, dict) else 0
    rest = int(_left(node, "gpu"))
    if rest > 0 and not models:
        gpus[""] = rest
    return {model: n for model, n in by_portal_model(gpus, names).items() if n > 0}


def _node_free(node: dict, names) -> NodeFree:
    return NodeFree(
        cores=int(_left(node, "cpu")),
        memory_gib=round(_left(node, "ram") / MIB_PER_GIB, 2),
        disk_gib=round(_left(node, "disk") / MIB_PER_GIB, 2),
        gpus=_node_gpus(node, names),
    )


def _reading(site: str, nodes: list[dict]) -> SiteReading:
    usable = [node for node in nodes if _usable(node)]
    names = current_app.config.get("GPU_MODEL_NAMES") or {}
    frees = [_node_free(node, names) for node in usable]
    gpus: dict[str, int] = {}
    for node in frees:
        for model, n in node.gpus.items():
            gpus[model] = gpus.get(model, 0) + n
    return SiteReading(
        site=site,
        # A cluster none of whose nodes takes work is closed, whatever its numbers say.
        maintenance=bool(nodes) and not usable,
        cores=sum(node.cores for node in frees),
        memory_gib=round(sum(node.memory_gib for node in frees), 2),
        disk_gib=round(sum(node.disk_gib for node in frees), 2),
        # A cluster has no quota of machines: each machine needs a node with room for it.
        instances=None,
        gpus=gpus,
        gpus_known=True,
        # Nodes with nothing free cannot take a machine: they need not be kept.
        nodes=tuple(node for node in frees if node.cores or node.memory_gib or node.gpus),
    )
