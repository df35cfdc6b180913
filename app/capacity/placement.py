"""Whether a request has room on the nodes of a cluster: each machine (or container) of a
request runs on one node, so a cluster's sums say too little. Two A100s free on two nodes do
not make room for a two-GPU notebook.

A request's machines come from its charge (``machines``: the size of one machine of each kind
and how many, see ``app.quotas.operations.charge_for``); a charge stored before it carried
them is taken as machines of equal size sharing its totals. The plan is greedy: the largest
machine first, each on the node where it leaves the least room (so that large nodes stay for
large machines). A plan that fails says what the first machine left without a node lacks
(``Shortfall``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.capacity.snapshot import NodeFree

GIB = 2**30
# The charge's key for GPUs whose model the template leaves to the site.
ANY_GPU_MODEL = "any model"


@dataclass(frozen=True)
class Machine:
    """One machine of a request: cores, memory and disk (bytes), GPUs of ``gpu_model`` (None:
    any model)."""

    cores: float = 0.0
    memory: float = 0.0
    disk: float = 0.0
    gpus: int = 0
    gpu_model: str | None = None

    def amounts(self) -> list[tuple[str, str | None, float]]:
        """What it needs, resource by resource: (key, GPU model, amount), as ``verdicts.Need``."""
        found = [("gpus", self.gpu_model, float(self.gpus))] if self.gpus else []
        found += [
            (key, None, float(amount))
            for key, amount in (("cores", self.cores), ("memory", self.memory), ("disk", self.disk))
            if amount
        ]
        return found


@dataclass(frozen=True)
class Shortfall:
    """Why the machines of a request do not each find a node. ``lacking`` is a resource no
    single node has enough of for ``machine`` (key, GPU model, amount needed, the most free on
    one node), or None when each resource is somewhere but not all together, or not for every
    machine; ``placed`` of ``count`` machines found a node."""

    machine: Machine
    count: int
    placed: int
    lacking: tuple[str, str | None, float, float] | None


def machines_of(charge: Mapping) -> list[Machine]:
    """Every machine of the request ``charge``, one entry per machine, largest first."""
    found: list[Machine] = []
    listed = charge.get("machines")
    if isinstance(listed, list):
        for kind in listed:
            model = kind.get("gpu_model") or ANY_GPU_MODEL
            machine = Machine(
                cores=float(kind.get("cores") or 0),
                memory=float(kind.get("memory") or 0),
                disk=float(kind.get("disk") or 0),
                gpus=int(kind.get("gpus") or 0),
                gpu_model=None if model == ANY_GPU_MODEL else model,
            )
            found += [machine] * int(kind.get("count") or 0)
    else:
        found = _even_split(charge)
    return sorted(found, key=_size, reverse=True)


def _even_split(charge: Mapping) -> list[Machine]:
    count = int(charge.get("nodes") or 0)
    if not count:
        return []
    models = [m for m, n in (charge.get("gpu_models") or {}).items() if n and m != ANY_GPU_MODEL]
    machine = Machine(
        cores=float(charge.get("cores") or 0) / count,
        memory=float(charge.get("memory") or 0) / count,
        disk=float(charge.get("disk") or 0) / count,
        gpus=math.ceil(int(charge.get("gpus") or 0) / count),
        gpu_model=models[0] if len(models) == 1 else None,
    )
    return [machine] * count


def _size(machine: Machine) -> tuple:
    return (machine.gpus, machine.cores, machine.memory, machine.disk)


class _Room:
    """What a node has left while machines are planned onto it."""

    def __init__(self, node: NodeFree):
        self.cores = float(node.cores)
        self.memory = node.memory_gib * GIB
        self.disk = node.disk_gib * GIB
        self.gpus = {model.casefold(): n for model, n in node.gpus.items()}

    def gpus_of(self, model: str | None) -> int:
        if model is None:
            return sum(self.gpus.values())
        return self.gpus.get(model.casefold(), 0)

    def free(self, key: str, model: str | None) -> float:
        return float(self.gpus_of(model)) if key == "gpus" else getattr(self, key)

    def takes(self, machine: Machine) -> bool:
        # A little slack: sizes read in GiB and asked in bytes may round apart.
        return all(
            self.free(key, model) + 1e-6 >= amount for key, model, amount in machine.amounts()
        )

    def take(self, machine: Machine) -> None:
        self.cores -= machine.cores
        self.memory -= machine.memory
        self.disk -= machine.disk
        wanted = machine.gpus
        models = [machine.gpu_model.casefold()] if machine.gpu_model else sorted(self.gpus)
        for model in models:
            taken = min(wanted, self.gpus.get(model, 0))
            self.gpus[model] = self.gpus.get(model, 0) - taken
            wanted -= taken

    def left_after(self, machine: Machine) -> tuple:
        return (self.gpus_of(None) - machine.gpus, self.cores - machine.cores, self.memory)


def plan(machines: Sequence[Machine], nodes: Sequence[NodeFree]) -> Shortfall | None:
    """None when every machine (``machines_of``) finds a node with room among ``nodes``;
    otherwise what the first machine left without one lacks."""
    rooms = [_Room(node) for node in nodes]
    first_left_out: Machine | None = None
    placed = 0
    for machine in machines:
        fitting = [room for room in rooms if room.takes(machine)]
        if not fitting:
            first_left_out = first_left_out or machine
            continue
        min(fitting, key=lambda room: room.left_after(machine)).take(machine)
        placed += 1
    if first_left_out is None:
        return None
    return Shortfall(first_left_out, len(machines), placed, _lacking(first_left_out, nodes))


def _lacking(machine: Machine, nodes: Sequence[NodeFree]) -> tuple | None:
    """The first resource ``machine`` needs of which no node has enough, even with nothing
    else placed, with the most free on one node."""
    rooms = [_Room(node) for node in nodes]
    for key, model, amount in machine.amounts():
        most = max((room.free(key, model) for room in rooms), default=0.0)
        if most + 1e-6 < amount:
            return (key, model, amount, max(most, 0.0))
    return None
