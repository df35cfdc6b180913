"""What a deployment's submitted text says about a batch job (Chronos), read from the text and
the parameters alone: whether it is a job, its schedule, and whether it runs only once.

The record (``app.deployments.models``) keeps the last answer in a column of its own, so that
quota sums can ask the database which finished jobs hold nothing; ``app.deployments.jobs``
speaks of jobs in words.
"""

from __future__ import annotations

import re

import yaml

from app.caches import cached
from app.catalogue.models import TemplateRevision
from app.extensions import db
from app.tosca.schedules import Schedule, parse_schedule

_CHRONOS_NODE = re.compile(r"^\s*type:\s*\S*Chronos\s*$", re.MULTILINE)


def holds_job(template_text: str | None) -> bool:
    """Whether ``template_text`` holds a Chronos batch job's node."""
    return bool(_CHRONOS_NODE.search(template_text or ""))


def schedule_in(template_text: str | None, parameters: dict | None) -> Schedule | None:
    """The schedule the job was sent with (its Chronos node's ``schedule``), or None."""
    try:
        tosca = yaml.safe_load(template_text or "")
    except yaml.YAMLError:
        return None
    topology = tosca.get("topology_template") if isinstance(tosca, dict) else None
    if not isinstance(topology, dict):
        return None
    inputs = topology.get("inputs") if isinstance(topology.get("inputs"), dict) else {}
    for node in (topology.get("node_templates") or {}).values():
        if not isinstance(node, dict) or "Chronos" not in str(node.get("type", "")):
            continue
        value = (node.get("properties") or {}).get("schedule")
        if isinstance(value, dict) and "get_input" in value:
            name = value["get_input"]
            definition = inputs.get(name) if isinstance(inputs.get(name), dict) else {}
            value = (parameters or {}).get(name, definition.get("default"))
        if isinstance(value, str):
            try:
                return parse_schedule(value)
            except ValueError:
                return None
    return None


def runs_once(template_text: str | None, parameters: dict | None) -> bool:
    """Whether the text is a batch job that runs once (``R1``): once it has succeeded or failed
    for good, nothing of it is left running. A repeating job runs again after a success, and a
    schedule the portal cannot read may repeat, so neither is ever finished by one run."""
    if not holds_job(template_text):
        return False
    schedule = schedule_in(template_text, parameters)
    return schedule is not None and schedule.repeats == 1


def revision_runs_once(revision_id: int) -> bool:
    """Whether a catalogue revision, launched with its defaults, is a job that runs once; read
    once per revision and process, since a revision's text never changes."""

    def read() -> bool:
        text = db.session.scalar(
            db.select(TemplateRevision.tosca_text).where(TemplateRevision.id == revision_id)
        )
        return runs_once(text, None)

    return cached("revision-runs-once", 4096, revision_id, read)
