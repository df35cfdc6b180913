"""How a deployment reads on the portal's pages: statuses in plain words, outputs shown the way
the template's sidecar asks, settings under the launch form's labels, and the timeline as steps.

Everything here works on what the database holds; nothing asks the orchestrator.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from flask import url_for
from sqlalchemy import select

from app.catalogue.models import TemplateRevision
from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.status import Status
from app.extensions import db
from app.tosca import display
from app.tosca.metadata import humanise
from app.tosca.parsed import OutputSpec, ParsedTemplate
from app.tosca.schedules import parse_schedule


@dataclass(frozen=True)
class StatusLook:
    """A status as a badge: the words a researcher reads, the colour, and what it means."""

    label: str
    tone: str
    meaning: str


STATUS_LOOKS = {
    Status.SUBMITTING: StatusLook(
        "Submitting", "info", "The portal is sending it to the orchestrator."
    ),
    Status.UNCONFIRMED: StatusLook(
        "Checking with the orchestrator",
        "warning",
        "The orchestrator did not answer clearly when it was sent. The portal is checking "
        "whether it arrived and will never send it twice.",
    ),
    Status.NOT_LAUNCHED: StatusLook(
        "Not launched",
        "secondary",
        "The orchestrator refused it or was not reached; nothing "
        "was created and nothing is charged.",
    ),
    Status.VANISHED: StatusLook(
        "Gone from the orchestrator",
        "secondary",
        "The orchestrator no longer knows this deployment; it may have been deleted elsewhere.",
    ),
    Status.CREATE_IN_PROGRESS: StatusLook("Creating", "info", "The cloud is creating it."),
    Status.CREATE_COMPLETE: StatusLook("Ready", "success", "It is running and can be used."),
    Status.CREATE_FAILED: StatusLook("Failed", "danger", "The cloud could not create it."),
    Status.UPDATE_IN_PROGRESS: StatusLook("Updating", "info", "A change is being applied."),
    Status.UPDATE_COMPLETE: StatusLook("Ready", "success", "It is running and can be used."),
    Status.UPDATE_FAILED: StatusLook(
        "Update failed", "warning", "A change could not be applied; it may still be usable."
    ),
    Status.DELETE_IN_PROGRESS: StatusLook(
        "Deleting", "secondary", "Its resources are being freed."
    ),
    Status.DELETE_COMPLETE: StatusLook("Deleted", "secondary", "Its resources have been freed."),
    Status.DELETE_FAILED: StatusLook(
        "Delete failed",
        "danger",
        "Deleting it did not finish. Delete it again; a forced delete is offered too.",
    ),
    Status.UNKNOWN: StatusLook("Unknown", "secondary", "The orchestrator has lost track of it."),
}

# Phrases found in orchestrator reasons, and what they mean for the person reading them.
PLAIN_REASONS = (
    ("quota", "The cloud site has no room left under its quota for this request."),
    ("no matching flavor", "No site offers a machine size matching the cores and memory asked."),
    ("flavor", "No site offers a machine size matching the cores and memory asked."),
    ("image", "No site has the operating system image this application needs."),
    ("timeout", "The cloud took too long to answer, so the attempt was abandoned."),
    ("timed out", "The cloud took too long to answer, so the attempt was abandoned."),
    ("no sla", "Your group has no agreement with a cloud site that could host this."),
    ("sla", "Your group has no agreement with a cloud site that could host this."),
    ("unauthorized", "The cloud site did not accept the credentials it was given."),
    ("forbidden", "The cloud site did not allow this request."),
    ("failed to execute", "The job's command ended in an error, after every retry it was given."),
)

SOURCE_WORDS = {
    "launch": "launch",
    "callback": "orchestrator notice",
    "sync": "status check",
    "user": "owner",
    "admin": "administrator",
    "portal": "the portal",
}


def status_look(status: str) -> StatusLook:
    """The badge of ``status``; statuses the portal does not know are shown as they are."""
    return STATUS_LOOKS.get(status) or StatusLook(humanise(status.lower()), "secondary", "")


def plain_reason(reason: str | None) -> str | None:
    """A sentence for a researcher about the orchestrator's ``reason``, when one is known."""
    if not reason:
        return None
    lowered = reason.lower()
    for phrase, sentence in PLAIN_REASONS:
        if phrase in lowered:
            return sentence
    return None


def is_web_address(value: Any) -> bool:
    """Whether ``value`` is an http(s) URL with a host: the only values that become links."""
    if not isinstance(value, str) or any(c.isspace() for c in value.strip()):
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


@dataclass(frozen=True)
class ShownOutput:
    """One output as a page shows it: ``show`` is the sidecar kind actually used.

    ``value`` is the raw value (for structured display); ``text`` its one-string form.
    """

    name: str
    label: str
    show: str
    text: str
    value: Any = None
    description: str = ""

    @property
    def structured(self) -> bool:
        return isinstance(self.value, dict | list)


def as_text(value: Any) -> str:
    """A value as one string: strings as they are, the rest as indented JSON (for files)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _shown(name: str, value: Any, spec: OutputSpec | None) -> ShownOutput:
    show = spec.show if spec else "copy"
    text = as_text(value)
    # Only web addresses become links: an output could hold "javascript:" or anything else.
    if show == "link" and not is_web_address(value):
        show = "copy"
    if show == "ssh" and (not isinstance(value, str) or any(c.isspace() for c in text)):
        show = "copy"
    if show == "copy" and isinstance(value, dict | list):
        show = "structured"
    label = (spec.label if spec else None) or display.output_label(name)
    return ShownOutput(name, label, show, text, value, spec.description if spec else "")


def parsed_templates(revision_ids: set[int]) -> dict[int, ParsedTemplate]:
    """Parsed templates by revision id, read in one query, in the current request's language
    (``ParsedTemplate.localised``); revisions unreadable now are skipped."""
    found: dict[int, ParsedTemplate] = {}
    if not revision_ids:
        return found
    rows = db.session.execute(
        select(TemplateRevision.id, TemplateRevision.parsed).where(
            TemplateRevision.id.in_(revision_ids)
        )
    )
    for revision_id, parsed in rows:
        try:
            found[revision_id] = ParsedTemplate.from_json(parsed).localised()
        except ValueError:
            continue  # stored in an older format; names stand in for labels
    return found


def in_template_order(values: dict, names: list[str]) -> list[str]:
    """``values``' keys in the order the template lists them, then any others sorted."""
    return [n for n in names if n in values] + sorted(set(values) - set(names))


def shown_outputs(
    deployments: list[Deployment], parsed: dict[int, ParsedTemplate] | None = None
) -> dict[int, list[ShownOutput]]:
    """Each deployment's non-secret outputs in the order its template lists them, by id."""
    if parsed is None:
        parsed = parsed_templates({d.revision_id for d in deployments if d.revision_id})
    shown = {}
    for deployment in deployments:
        template = parsed.get(deployment.revision_id)
        by_name = {spec.name: spec for spec in template.outputs} if template else {}
        outputs = deployment.outputs or {}
        names = in_template_order(outputs, list(by_name))
        shown[deployment.id] = [_shown(n, outputs[n], by_name.get(n)) for n in names]
    return shown


def main_link(outputs: list[ShownOutput]) -> ShownOutput | None:
    """The deployment's main way in: the first link output, else the first web address."""
    for output in outputs:
        if output.show == "link":
            return output
    for output in outputs:
        if is_web_address(output.value):
            return ShownOutput(output.name, output.label, "link", output.text, output.value)
    return None


@dataclass(frozen=True)
class ShownSetting:
    """One launch parameter as the deployment page shows it."""

    name: str
    label: str
    text: str
    sent: str | None = None  # what was sent, when ``text`` words it differently (admins only)


def _setting_text(value: Any, name: str = "") -> str:
    worded = display.value_text(name, value)
    if worded is not None:
        return worded
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return value or "(empty)"
    if isinstance(value, list):
        return ", ".join(_setting_text(v) for v in value) or "(none)"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def shown_settings(deployment: Deployment, template: ParsedTemplate | None) -> list[ShownSetting]:
    """The launch parameters under the labels the launch form gave them, in the form's order."""
    by_name = {spec.name: spec for spec in template.inputs} if template else {}
    parameters = deployment.parameters or {}
    shown = []
    for name in in_template_order(parameters, list(by_name)):
        spec = by_name.get(name)
        label = (spec.label if spec else None) or humanise(name)
        text, sent = _setting_text(parameters[name], name), None
        if spec and spec.widget == "schedule":
            with contextlib.suppress(ValueError):  # as sent when it cannot be read
                text, sent = parse_schedule(str(parameters[name])).describe(), text
        shown.append(ShownSetting(name, label, text, sent))
    return shown


def resources_summary(charge: dict | None) -> str:
    """What a deployment holds, on one line: ``2 cores · 8 GB memory · 50 GB disk · 1 GPU``."""
    from app.tosca.units import format_size

    if not charge:
        return ""
    parts = []
    nodes = charge.get("nodes")
    if isinstance(nodes, int) and nodes > 1:
        parts.append(f"{nodes} machines")
    cores = charge.get("cores", charge.get("cpus"))
    if cores:
        cores = int(cores) if float(cores).is_integer() else cores
        parts.append(f"{cores} core{'s' if cores != 1 else ''}")
    for key, noun in (("memory", "memory"), ("disk", "disk")):
        if isinstance(charge.get(key), int | float) and charge[key] > 0:
            parts.append(f"{format_size(int(charge[key]))} {noun}")
    gpus = charge.get("gpus")
    if isinstance(gpus, int | float) and gpus > 0:
        parts.append(f"{int(gpus)} GPU{'s' if gpus != 1 else ''}")
    return " · ".join(parts)


@dataclass(frozen=True)
class Step:
    """One timeline entry as a named step."""

    at: Any
    title: str
    tone: str
    by: str
    reason: str | None = None
    detail: list[str] = field(default_factory=list)


def timeline(deployment: Deployment, people: dict[int, str] | None = None, looks=None) -> list:
    """The deployment's events as steps, oldest first; ``people`` names actors by id, and
    ``looks`` words a status (``status_look`` unless given, e.g. a batch job's words)."""
    return [_step(e, people or {}, looks or status_look) for e in deployment.events]


def _step(event: DeploymentEvent, people: dict[int, str], looks) -> Step:
    look = looks(event.to_status) if event.to_status else None
    reason = (event.reason or "").strip() or None
    if event.to_status and event.to_status != event.from_status:
        title = look.label
    elif reason:
        # An action without a status change: its reason's first sentence names the step.
        title, _dot, rest = reason.partition(". ")
        title, reason = title.rstrip("."), rest.strip() or None
    else:
        title = "Noted"
    by = SOURCE_WORDS.get(event.source, event.source)
    if event.actor_id and event.actor_id in people:
        by = f"{by} by {people[event.actor_id]}"
    return Step(event.at, title, look.tone if look else "secondary", by, reason)


def url_pattern(endpoint: str, key: str) -> str:
    """``url_for(endpoint, key=<id>)`` as a pattern with ``{}`` where the id goes: the list
    needs two addresses per row, and routing each one cost more than the rest of its row."""
    marker = 9_876_543_210_123
    return url_for(endpoint, **{key: marker}).replace(str(marker), "{}")
