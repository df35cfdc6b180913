"""Chronos batch jobs in the emulator, as the orchestrator's ChronosServiceImpl handles them.

There a Chronos deployment is created once its jobs have run: each job is created on Chronos
(its resource CREATED, the job named after the resource's id), then polled; while Chronos
counts neither a success nor an error the job is FRESH (resource CONFIGURING, deployment still
CREATE_IN_PROGRESS); its first success makes it STARTED and, once every job has one, the
deployment CREATE_COMPLETE with its outputs; an error (counted by Chronos only after its
retries are spent) fails the poll, so the deployment becomes CREATE_FAILED with the
workflow's reason and the jobs are deleted. The log of a Chronos deployment is always empty.

A job does not run before the start of its ISO 8601 schedule (``R5/2030-01-01T02:00:00Z/P1D``;
an empty start is "now"). Whether a run fails is up to the emulated container: a command
ending in ``exit N`` (N not 0) or ``false`` fails, anything else succeeds.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from app.backends.paas.emulator.outputs import Topology

CHRONOS = "CHRONOS"
_START = re.compile(r"^R\d*/(?P<start>[^/]+)/P")
_FAILS = re.compile(r"(?:^|[;&|\n]\s*)(?:exit\s+0*[1-9]\d*|false)\s*$")


def job_nodes(topology: Topology) -> list[str]:
    """The names of the template's Chronos job nodes."""
    return [name for name, node in topology.nodes.items() if "Chronos" in str(node.get("type", ""))]


def _property(topology: Topology, name: str, key: str):
    return topology.evaluate((topology.nodes[name].get("properties") or {}).get(key))


def first_run(topology: Topology) -> datetime | None:
    """When the earliest job may first run (None: at once)."""
    starts = []
    for name in job_nodes(topology):
        match = _START.match(str(_property(topology, name, "schedule") or ""))
        if not match:
            continue
        try:
            moment = datetime.fromisoformat(match["start"].replace("Z", "+00:00"))
        except ValueError:
            continue
        starts.append(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    return min(starts) if starts else None


def may_run(topology: Topology) -> bool:
    """Whether the jobs' schedules have started."""
    start = first_run(topology)
    return start is None or start <= datetime.now(UTC)


def failing_job(topology: Topology, forced: bool = False) -> str | None:
    """The id Chronos knows the first failing job by, or None when every job succeeds;
    ``forced`` fails the first job whatever it runs (the emulator's fault switch)."""
    for name in job_nodes(topology):
        command = str(_property(topology, name, "command") or "").strip()
        if forced or _FAILS.search(command):
            return topology.resource_id(name)
    return None


def failure_reason(job_id: str) -> str:
    """The statusReason the orchestrator gives when a job's poll finds an error (a
    WorkflowException around the DeploymentException, as Spring words nested messages)."""
    return (
        "Error while checking the deployment status; nested exception is "
        "it.reply.orchestrator.exception.service.DeploymentException: "
        f"Chronos job {job_id} failed to execute"
    )


def job_states(topology: Topology, polled: bool) -> dict[str, str]:
    """Resource states of the jobs while the deployment is being created: CREATED once on
    Chronos, CONFIGURING once the orchestrator polled and found no result yet."""
    state = "CONFIGURING" if polled else "CREATED"
    return {topology.resource_id(name): state for name in job_nodes(topology)}
