"""How much a launch asks for: a TOSCA template plus its input values -> resources.

Quotas are checked before anything reaches the orchestrator, so the figures come from the
template alone, and the same figures feed the launch form's live summary, the check at submit
and the charge stored on the deployment. What is counted:

- every node with a ``host`` capability that states sizes (``num_cpus``, ``mem_size``,
  ``disk_size``, ``num_gpus``, ``gpu_model``), whatever its type is called: virtual machines,
  and the Docker runtimes under Marathon and Chronos apps. The software hosted on a machine
  takes its share of it and adds nothing;
- times the node's ``scalable.count`` (worker counts are usually an input feeding it), or the
  most it can grow to when that is more (``scalable.max_instances``, an elastic cluster's
  ``wn.max_instances``), said in ``Resources.notes``;
- block storage (``tosca.nodes.BlockStorage`` and types derived from it or named like it):
  its ``size`` once per instance of each node attaching it, or once if nothing attaches it;
- a node sized by a flavour (``instance_type``): the flavour's size from ``QUOTA_FLAVOURS``;
- QCG batch jobs: their cores and GPUs, once.

What cannot be counted (an unknown flavour, a size only known once deployed, an unreadable
value) is listed in ``Resources.uncounted``, one sentence per node, and the rest still counts.
Units are fixed: memory and disk in bytes, CPUs as a float (containers may ask for half a core).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from flask_babel import gettext as _

from app.quotas.amounts import amount_text
from app.quotas.reading import capability, derives_from, is_storage, properties_of, topology_of
from app.quotas.resolving import AccountingError, Resolver
from app.quotas.sized_by import inputs_by_resource
from app.tosca.units import format_size, size_in_bytes

__all__ = [
    "ANY_GPU_MODEL",
    "AccountingError",
    "NodeResources",
    "Resources",
    "count_resources",
    "format_size",
    "parse_size",
    "requested_resources",
]

# Types known to allocate what their ``host`` capability states. Any other node with sizes in
# a ``host`` capability counts too, so templates need no local copy of their types.
_HOST_TYPES = frozenset(
    {
        "tosca.nodes.Compute",
        "tosca.nodes.indigo.Compute",
        "tosca.nodes.Container.Runtime",
        "tosca.nodes.indigo.Container.Runtime.Docker",
    }
)
_HOST_SIZE_KEYS = ("num_cpus", "mem_size", "disk_size", "num_gpus", "instance_type")
# QCG jobs run on an HPC site rather than a cloud, and state their size as node properties.
_QCG_JOB = "tosca.nodes.indigo.Qcg.Job"
# The key of GPUs whose model the template leaves to the site.
ANY_GPU_MODEL = "any model"


@dataclass(frozen=True)
class NodeResources:
    """One node of the template: its size per instance, and how many instances."""

    name: str
    count: int
    cpus: float = 0.0
    gpus: int = 0
    memory: int = 0  # bytes
    disk: int = 0  # bytes
    gpu_model: str | None = None

    @property
    def summary(self) -> str:
        """Read as ``2 × (4 cores, 8 GB, 1 GPU)`` on the launch page."""
        parts = [amount_text("cores", self.cpus)] if self.cpus or not self.disk else []
        if self.memory:
            parts.append(format_size(self.memory))
        if self.gpus:
            parts.append(amount_text("gpus", self.gpus, self.gpu_model))
        if self.disk:
            parts.append(_("%(size)s disk", size=format_size(self.disk)))
        return f"{self.count} × ({', '.join(parts)})"


@dataclass(frozen=True)
class Resources:
    """Totals over the whole template, with the per-node breakdown they come from.

    ``nodes`` counts instances (virtual machines, containers, job nodes; not volumes);
    ``memory`` and ``disk`` are in bytes; ``gpu_models`` splits ``gpus`` by model, GPUs of no
    stated model under ANY_GPU_MODEL. ``uncounted`` says, per node, what could not be counted.
    """

    nodes: int = 0
    cpus: float = 0.0
    gpus: int = 0
    memory: int = 0
    disk: int = 0
    breakdown: tuple[NodeResources, ...] = ()
    gpu_models: dict[str, int] = field(default_factory=dict)
    # The nodes of ``breakdown`` that are machines (not volumes): each runs on one host.
    machines: tuple[NodeResources, ...] = ()
    uncounted: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    # The inputs each resource ("cores", "memory", "disk", "gpus") was read from.
    inputs: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """All nodes on one line, e.g. ``1 × (2 cores, 4 GB) + 2 × (4 cores, 8 GB, 1 GPU)``."""
        return " + ".join(node.summary for node in self.breakdown)


def requested_resources(
    template: Mapping[str, Any], parameters: Mapping[str, Any], flavours: Mapping | None = None
) -> Resources:
    """Add up what ``template`` asks for when launched with ``parameters``, strictly.

    Raises AccountingError when anything cannot be counted (see ``count_resources``), with
    the first node's reason.
    """
    resources = count_resources(template, parameters, flavours)
    if resources.uncounted:
        raise AccountingError(resources.uncounted[0])
    return resources


def count_resources(
    template: Mapping[str, Any], parameters: Mapping[str, Any], flavours: Mapping | None = None
) -> Resources:
    """Add up what ``template`` asks for when launched with ``parameters``.

    ``template`` is the loaded TOSCA YAML; ``parameters`` maps input names to values, and an
    input without a value takes its TOSCA default. ``flavours`` maps flavour names to sizes
    (``{"cores": 4, "memory": "16 GB", "disk": "80 GB", "gpus": 1, "gpu_model": "T4"}``).
    Only the properties that carry sizes are evaluated, so an unrelated input left empty does
    no harm. A node that cannot be counted is left out and explained in ``uncounted``.

    Raises AccountingError only when the document is not a TOSCA mapping at all.
    """
    node_templates, inputs, local_types = topology_of(template)
    resolver = Resolver(inputs, parameters or {})
    breakdown: list[NodeResources] = []
    uncounted: list[str] = []
    notes: list[str] = []
    elastic = _elastic_maximums(node_templates, resolver)
    storage: list[tuple[str, Mapping]] = []
    counts: dict[str, int] = {}

    for name, node in node_templates.items():
        if not isinstance(node, Mapping):
            continue
        node_type = node.get("type")
        try:
            if is_storage(node_type, local_types):
                storage.append((str(name), node))
                continue
            if derives_from(node_type, {_QCG_JOB}, local_types):
                found = _qcg_job(str(name), node, resolver)
            elif derives_from(node_type, _HOST_TYPES, local_types) or _states_sizes(node):
                found = _host_node(str(name), node, resolver, flavours or {})
            else:
                continue
            found = _at_most(found, node, resolver, elastic.get(str(name), 0), notes)
        except AccountingError as error:
            uncounted.append(str(error))
            continue
        counts[str(name)] = found.count
        if found.count:
            breakdown.append(found)

    for name, node in storage:
        try:
            volume = _volume(
                name, node, resolver, _attached_instances(name, node_templates, counts)
            )
        except AccountingError as error:
            uncounted.append(str(error))
            continue
        if volume.count and volume.disk:
            breakdown.append(volume)

    machines = [n for n in breakdown if n.name not in {s for s, _ in storage}]
    gpu_models: dict[str, int] = {}
    for node in breakdown:
        if node.gpus and node.count:
            key = node.gpu_model or ANY_GPU_MODEL
            gpu_models[key] = gpu_models.get(key, 0) + node.count * node.gpus
    return Resources(
        nodes=sum(n.count for n in machines),
        cpus=sum(n.count * n.cpus for n in breakdown),
        gpus=sum(n.count * n.gpus for n in breakdown),
        memory=sum(n.count * n.memory for n in breakdown),
        disk=sum(n.count * n.disk for n in breakdown),
        breakdown=tuple(breakdown),
        gpu_models=gpu_models,
        machines=tuple(machines),
        uncounted=tuple(uncounted),
        notes=tuple(notes),
        inputs=inputs_by_resource(resolver.read),
    )


def _elastic_maximums(node_templates: Mapping, resolver: Resolver) -> dict[str, int]:
    """{machine node: the most workers it can grow to}, from the software it hosts: an elastic
    cluster's worker node (INDIGO ``LRMS.WorkerNode.*``) states ``max_instances`` in its ``wn``
    capability while its machine starts with ``scalable.count`` 0 or 1."""
    found: dict[str, int] = {}
    for name, node in node_templates.items():
        if not isinstance(node, Mapping):
            continue
        most = capability(node, "wn").get("max_instances")
        host = _host_of(node)
        if most is None or host is None:
            continue
        count = resolver.integer(most, f"node {name!r}: max_instances", default=0)
        found[host] = max(found.get(host, 0), count)
    return found


def _host_of(node: Mapping) -> str | None:
    for requirement in node.get("requirements") or ():
        if isinstance(requirement, Mapping) and "host" in requirement:
            target = requirement["host"]
            target = target.get("node") if isinstance(target, Mapping) else target
            return str(target) if target is not None else None
    return None


def _at_most(
    found: NodeResources, node: Mapping, resolver: Resolver, elastic: int, notes: list[str]
) -> NodeResources:
    """``found`` counted at the most instances it can grow to (``scalable.max_instances``, or
    what an elastic cluster's workers allow), saying so in ``notes``: a quota must hold what
    the cluster may become without asking again."""
    where = f"node {found.name!r}"
    stated = capability(node, "scalable").get("max_instances")
    most = max(elastic, resolver.integer(stated, f"{where}: max_instances", default=0))
    if most <= found.count:
        return found
    notes.append(
        _(
            "%(where)s starts with %(count)s and can grow to %(most)s machines; it is charged at "
            "%(most)s, the most it can hold, so growing never exceeds a quota.",
            where=where,
            count=found.count,
            most=most,
        )
    )
    return replace(found, count=most)


def parse_size(value: Any, where: str = "size") -> int:
    """Read a TOSCA scalar-unit.size (``"4 GB"``, ``"2GiB"``, a bare number of bytes) as bytes.

    Raises AccountingError for anything else, naming ``where`` in the message.
    """
    try:
        return size_in_bytes(value)
    except ValueError as error:
        raise AccountingError(
            _(
                "%(where)s: %(problem)s, got %(value)s.",
                where=where,
                problem=error,
                value=repr(value),
            )
        ) from None


def _states_sizes(node: Mapping) -> bool:
    host = capability(node, "host")
    return any(key in host for key in _HOST_SIZE_KEYS)


def _host_node(
    name: str, node: Mapping[str, Any], resolver: Resolver, flavours: Mapping
) -> NodeResources:
    host, scalable = capability(node, "host"), capability(node, "scalable")
    where = f"node {name!r}"
    count = resolver.integer(scalable.get("count"), f"{where}: count", default=1)
    gpus = resolver.integer(host.get("num_gpus"), f"{where}: num_gpus", default=0)
    sized = NodeResources(
        name=name,
        count=count,
        cpus=resolver.number(host.get("num_cpus"), f"{where}: num_cpus"),
        gpus=gpus,
        memory=resolver.size(host.get("mem_size"), f"{where}: mem_size"),
        disk=resolver.size(host.get("disk_size"), f"{where}: disk_size"),
        gpu_model=_model(resolver.text(host.get("gpu_model"), f"{where}: gpu_model"), gpus),
    )
    flavour = resolver.text(host.get("instance_type"), f"{where}: instance_type")
    if flavour is None or count == 0:
        return sized
    if flavour not in flavours:
        raise AccountingError(
            _(
                "%(where)s cannot be counted: flavour %(flavour)s is unknown (the portal does "
                "not know its size).",
                where=where,
                flavour=repr(flavour),
            )
        )
    return _flavoured(sized, flavour, flavours[flavour])


def _flavoured(sized: NodeResources, flavour: str, size: Any) -> NodeResources:
    # The flavour is what the cloud allocates, whatever else the template states.
    where = f"QUOTA_FLAVOURS[{flavour!r}]"
    if not isinstance(size, Mapping):
        raise AccountingError(_("%(where)s is not a mapping of sizes.", where=where))
    reader = Resolver({}, {})
    gpus = reader.integer(size.get("gpus"), f"{where}: gpus", default=0)
    return NodeResources(
        name=sized.name,
        count=sized.count,
        cpus=reader.number(size.get("cores"), f"{where}: cores"),
        gpus=gpus,
        memory=reader.size(size.get("memory"), f"{where}: memory"),
        disk=reader.size(size.get("disk"), f"{where}: disk") or sized.disk,
        gpu_model=_model(reader.text(size.get("gpu_model"), f"{where}: gpu_model"), gpus),
    )


def _model(text: str | None, gpus: int) -> str | None:
    # Templates often offer "any" beside the models: the site then picks one.
    if not gpus or text is None or text.lower() in ("any", "*"):
        return None
    return text


def _attached_instances(storage: str, node_templates: Mapping, counts: Mapping[str, int]) -> int:
    """How many volumes a block storage node stands for: one per instance attaching it."""
    attached, anyone = 0, False
    for name, node in node_templates.items():
        requirements = node.get("requirements") if isinstance(node, Mapping) else None
        for requirement in requirements if isinstance(requirements, list) else []:
            if not isinstance(requirement, Mapping):
                continue
            for target in requirement.values():
                target = target.get("node") if isinstance(target, Mapping) else target
                if target == storage:
                    anyone = True
                    attached += counts.get(str(name), 1)
    return attached if anyone else 1


def _volume(name: str, node: Mapping, resolver: Resolver, instances: int) -> NodeResources:
    size = resolver.size(properties_of(node).get("size"), f"volume {name!r}: size")
    return NodeResources(name=name, count=instances, disk=size)


def _qcg_job(name: str, node: Mapping[str, Any], resolver: Resolver) -> NodeResources:
    # The job is one request to the batch system, however many nodes it spans; memory is left
    # out because the type gives memory_per_node as a bare integer with no unit.
    properties = properties_of(node)
    where = f"node {name!r}"

    def read(key: str, default: int) -> int:
        return resolver.integer(properties.get(key), f"{where}: {key}", default)

    cores = read("total_cores", 0) or read("total_nodes", 1) * read("cores_per_node", 0)
    return NodeResources(name=name, count=1, cpus=float(cores), gpus=read("gpus", 0))
