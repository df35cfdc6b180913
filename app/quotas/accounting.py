"""How much a launch asks for: a TOSCA template plus its input values -> resources.

Quotas are checked before anything reaches the orchestrator, so the figures come from the
template alone. Resources live on the nodes that carry a ``host`` capability with sizes
(virtual machines and the Docker runtimes under Marathon and Chronos apps); the software
hosted on them takes its share of the same machine and adds nothing. Units are fixed:
memory and disk in bytes, CPUs as a float (containers may ask for half a core).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "AccountingError",
    "NodeResources",
    "Resources",
    "format_size",
    "parse_size",
    "requested_resources",
]

# Types whose ``host`` capability states the size of what gets allocated. Types derived
# from these in the template's own ``node_types`` count as well; any other type, even if it
# sits on top of one of these, contributes nothing of its own.
_HOST_TYPES = frozenset(
    {
        "tosca.nodes.Compute",
        "tosca.nodes.indigo.Compute",
        "tosca.nodes.Container.Runtime",
        "tosca.nodes.indigo.Container.Runtime.Docker",
    }
)
# QCG jobs run on an HPC site rather than a cloud, and state their size as node properties.
_QCG_JOB = "tosca.nodes.indigo.Qcg.Job"

_SIZE_UNITS = {
    "b": 1,
    "kb": 10**3,
    "kib": 2**10,
    "mb": 10**6,
    "mib": 2**20,
    "gb": 10**9,
    "gib": 2**30,
    "tb": 10**12,
    "tib": 2**40,
}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]*)\s*$")


class AccountingError(ValueError):
    """The template or its inputs don't say clearly how much they ask for."""


@dataclass(frozen=True)
class NodeResources:
    """One node of the template: its size per instance, and how many instances."""

    name: str
    count: int
    cpus: float = 0.0
    gpus: int = 0
    memory: int = 0  # bytes
    disk: int = 0  # bytes

    @property
    def summary(self) -> str:
        """Read as ``2 × (4 cores, 8 GB, 1 GPU)`` on the launch page."""
        parts = [_plural(self.cpus, "core")]
        if self.memory:
            parts.append(format_size(self.memory))
        if self.gpus:
            parts.append(_plural(self.gpus, "GPU"))
        if self.disk:
            parts.append(f"{format_size(self.disk)} disk")
        return f"{self.count} × ({', '.join(parts)})"


@dataclass(frozen=True)
class Resources:
    """Totals over the whole template, with the per-node breakdown they come from.

    ``nodes`` counts instances (virtual machines, containers, job nodes); ``memory`` and
    ``disk`` are in bytes. ``breakdown`` lists the nodes with at least one instance.
    """

    nodes: int = 0
    cpus: float = 0.0
    gpus: int = 0
    memory: int = 0
    disk: int = 0
    breakdown: tuple[NodeResources, ...] = ()

    @property
    def summary(self) -> str:
        """All nodes on one line, e.g. ``1 × (2 cores, 4 GB) + 2 × (4 cores, 8 GB, 1 GPU)``."""
        return " + ".join(node.summary for node in self.breakdown)


def requested_resources(template: Mapping[str, Any], parameters: Mapping[str, Any]) -> Resources:
    """Add up what ``template`` asks for when launched with ``parameters``.

    ``template`` is the loaded TOSCA YAML; ``parameters`` maps input names to values, and an
    input without a value takes its TOSCA default. Only the properties that carry sizes are
    evaluated, so an unrelated input left empty does no harm.

    Raises AccountingError when the template is not a TOSCA mapping, or when a size or a
    count is missing, negative, can't be read, or depends on something only known at
    deployment time (``get_attribute``, ``concat``...).
    """
    if not isinstance(template, Mapping):
        raise AccountingError("The template is not a TOSCA document.")
    topology = template.get("topology_template") or {}
    if not isinstance(topology, Mapping):
        raise AccountingError("The template's topology_template is not a mapping.")
    node_templates = topology.get("node_templates") or {}
    if not isinstance(node_templates, Mapping):
        raise AccountingError("The template's node_templates is not a mapping.")
    inputs = topology.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        raise AccountingError("The template's inputs are not a mapping.")
    resolver = _Resolver(inputs, parameters or {})
    local_types = template.get("node_types") or {}
    if not isinstance(local_types, Mapping):
        local_types = {}

    breakdown = []
    for name, node in node_templates.items():
        if not isinstance(node, Mapping):
            continue
        node_type = node.get("type")
        if _derives_from(node_type, _HOST_TYPES, local_types):
            found = _host_node(str(name), node, resolver)
        elif _derives_from(node_type, {_QCG_JOB}, local_types):
            found = _qcg_job(str(name), node, resolver)
        else:
            continue
        if found.count:
            breakdown.append(found)

    return Resources(
        nodes=sum(n.count for n in breakdown),
        cpus=sum(n.count * n.cpus for n in breakdown),
        gpus=sum(n.count * n.gpus for n in breakdown),
        memory=sum(n.count * n.memory for n in breakdown),
        disk=sum(n.count * n.disk for n in breakdown),
        breakdown=tuple(breakdown),
    )


def parse_size(value: Any, where: str = "size") -> int:
    """Read a TOSCA scalar-unit.size (``"4 GB"``, ``"2GiB"``, ``"4096 MB"``) as bytes.

    GB, MB... are decimal and GiB, MiB... binary, as TOSCA defines them; units are read
    case-insensitively. A bare number is taken as bytes, TOSCA's default unit.

    Raises AccountingError for anything else, naming ``where`` in the message.
    """
    if isinstance(value, bool):
        raise AccountingError(f"{where}: expected a size such as '8 GB', got {value!r}.")
    if isinstance(value, int | float):
        number, unit = Decimal(str(value)), "b"
    else:
        match = _SIZE_RE.match(str(value))
        if not match:
            raise AccountingError(f"{where}: expected a size such as '8 GB', got {value!r}.")
        number, unit = Decimal(match.group(1)), (match.group(2) or "b").lower()
    if unit not in _SIZE_UNITS:
        raise AccountingError(f"{where}: unknown size unit in {value!r}.")
    if number < 0 or not number.is_finite():
        raise AccountingError(f"{where}: a size can't be {value!r}.")
    return int(number * _SIZE_UNITS[unit])


def format_size(size: int) -> str:
    """Show bytes in the unit the figure was most likely written in: ``8 GB``, ``2 GiB``."""
    for unit, factor in (("TB", 10**12), ("TiB", 2**40), ("GB", 10**9), ("GiB", 2**30)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    if size >= 10**9:
        return f"{size / 10**9:.1f} GB"
    if size >= 10**6:
        return f"{size / 10**6:.0f} MB"
    return f"{size} B"


class _Resolver:
    """Evaluates property values, replacing ``get_input`` wherever it appears."""

    def __init__(self, inputs: Mapping[str, Any], parameters: Mapping[str, Any]):
        self.inputs = inputs
        self.parameters = parameters

    def resolve(self, value: Any, where: str) -> Any:
        if isinstance(value, Mapping) and len(value) == 1:
            ((function, argument),) = value.items()
            if function == "get_input":
                return self.resolve(self._input(argument, where), where)
            if isinstance(function, str) and function.startswith(("get_", "concat", "token")):
                raise AccountingError(
                    f"{where}: {function} is only known once deployed, so the size can't be "
                    "counted in advance."
                )
        if isinstance(value, Mapping):
            return {k: self.resolve(v, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return value

    def _input(self, argument: Any, where: str) -> Any:
        # TOSCA 1.3 also allows [input_name, key_or_index, ...] to reach inside a value.
        path = list(argument) if isinstance(argument, list) else [argument]
        if not path or not isinstance(path[0], str):
            raise AccountingError(f"{where}: get_input needs an input name, got {argument!r}.")
        name = path[0]
        if name not in self.inputs:
            raise AccountingError(f"{where}: get_input names an undeclared input {name!r}.")
        definition = self.inputs[name]
        if not isinstance(definition, Mapping):
            definition = {}
        value = self.parameters.get(name)
        if value is None:
            value = definition.get("default")
        # Counting a required size as nothing would let a launch slip past its quota.
        if value is None and definition.get("required", True) not in (False, "no", "false"):
            raise AccountingError(f"{where}: the required input {name!r} has no value.")
        for step in path[1:]:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                raise AccountingError(f"{where}: input {name!r} has no element {step!r}.") from None
        return value


def _derives_from(
    node_type: Any, bases: frozenset[str] | set[str], local_types: Mapping[str, Any]
) -> bool:
    seen = set()
    while isinstance(node_type, str) and node_type not in seen:
        if node_type in bases:
            return True
        seen.add(node_type)
        definition = local_types.get(node_type)
        node_type = definition.get("derived_from") if isinstance(definition, Mapping) else None
    return False


def _host_node(name: str, node: Mapping[str, Any], resolver: _Resolver) -> NodeResources:
    capabilities = node.get("capabilities") or {}
    host = _properties(capabilities.get("host") if isinstance(capabilities, Mapping) else None)
    scalable = _properties(
        capabilities.get("scalable") if isinstance(capabilities, Mapping) else None
    )
    where = f"node {name!r}"
    count = _integer(resolver, scalable.get("count"), f"{where}: count", default=1)

    def read(key: str) -> tuple[Any, str]:
        label = f"{where}: {key}"
        return resolver.resolve(host.get(key), label), label

    memory, memory_at = read("mem_size")
    disk, disk_at = read("disk_size")
    return NodeResources(
        name=name,
        count=count,
        cpus=_number(resolver, host.get("num_cpus"), f"{where}: num_cpus"),
        gpus=_integer(resolver, host.get("num_gpus"), f"{where}: num_gpus", default=0),
        memory=0 if memory is None else parse_size(memory, memory_at),
        disk=0 if disk is None else parse_size(disk, disk_at),
    )


def _qcg_job(name: str, node: Mapping[str, Any], resolver: _Resolver) -> NodeResources:
    # The job is one request to the batch system, however many nodes it spans; memory is left
    # out because the type gives memory_per_node as a bare integer with no unit.
    properties = _properties(node)
    where = f"node {name!r}"

    def read(key: str, default: int) -> int:
        return _integer(resolver, properties.get(key), f"{where}: {key}", default)

    cores = read("total_cores", 0) or read("total_nodes", 1) * read("cores_per_node", 0)
    return NodeResources(name=name, count=1, cpus=float(cores), gpus=read("gpus", 0))


def _properties(entity: Any) -> Mapping[str, Any]:
    if not isinstance(entity, Mapping):
        return {}
    properties = entity.get("properties") or {}
    return properties if isinstance(properties, Mapping) else {}


def _number(resolver: _Resolver, raw: Any, where: str) -> float:
    value = resolver.resolve(raw, where)
    if value is None:
        return 0.0
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(Decimal(str(value).strip()))
    except (TypeError, ValueError, InvalidOperation):
        raise AccountingError(f"{where}: expected a number, got {value!r}.") from None
    if number < 0 or not math.isfinite(number):
        raise AccountingError(f"{where}: expected a number of zero or more, got {value!r}.")
    return number


def _integer(resolver: _Resolver, raw: Any, where: str, default: int) -> int:
    value = resolver.resolve(raw, where)
    if value is None:
        return default
    number = _number(resolver, value, where)
    if not number.is_integer():
        raise AccountingError(f"{where}: expected a whole number, got {value!r}.")
    return int(number)


def _plural(amount: float, noun: str) -> str:
    shown = int(amount) if float(amount).is_integer() else amount
    return f"{shown} {noun}" if shown == 1 else f"{shown} {noun}s"
