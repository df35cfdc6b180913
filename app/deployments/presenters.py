"""How a deployment reads on the portal's pages: statuses in plain words, outputs shown the way
the template's sidecar asks, settings under the launch form's labels, and the timeline as steps.

Everything here works on what the database holds; nothing asks the orchestrator.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, has_app_context
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from app.caches import cached
from app.deployments import revisions, said
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.formatting import format_decimal
from app.tosca import display
from app.tosca.metadata import humanise
from app.tosca.parsed import OutputSpec, ParsedTemplate
from app.tosca.schedules import parse_schedule

# A list shows the same few charges again and again (one template's sizes): each summary, in
# words and sizes of the reader's language, is kept per app by language and figures, which
# decide it whole.
SUMMARIES = 1024


@dataclass(frozen=True)
class StatusLook:
    """A status as a badge: the words a researcher reads, the colour, and what it means."""

    label: str
    tone: str
    meaning: str


STATUS_LOOKS = {
    Status.SUBMITTING: StatusLook(
        _l("Submitting"), "info", _l("The portal is sending it to the orchestrator.")
    ),
    Status.UNCONFIRMED: StatusLook(
        _l("Checking with the orchestrator"),
        "warning",
        _l(
            "The orchestrator did not answer clearly when it was sent. The portal is checking "
            "whether it arrived and will never send it twice."
        ),
    ),
    Status.NOT_LAUNCHED: StatusLook(
        _l("Not launched"),
        "secondary",
        _l(
            "The orchestrator refused it or was not reached; nothing was created and nothing "
            "is charged."
        ),
    ),
    Status.WAITING: StatusLook(
        _l("Waiting in line"),
        "info",
        _l(
            "It waits for resources that are taken now, by running deployments or at the "
            "sites; it starts by itself when they are free. Nothing is charged while it waits."
        ),
    ),
    Status.VANISHED: StatusLook(
        _l("Gone from the orchestrator"),
        "secondary",
        _l("The orchestrator no longer knows this deployment; it may have been deleted elsewhere."),
    ),
    Status.CREATING: StatusLook(_l("Creating"), "info", _l("The cloud is creating it.")),
    Status.READY: StatusLook(_l("Ready"), "success", _l("It is running and can be used.")),
    Status.FAILED: StatusLook(_l("Failed"), "danger", _l("The cloud could not create it.")),
    Status.UPDATING: StatusLook(_l("Updating"), "info", _l("A change is being applied.")),
    Status.UPDATED: StatusLook(_l("Ready"), "success", _l("It is running and can be used.")),
    Status.UPDATE_FAILED: StatusLook(
        _l("Update failed"),
        "warning",
        _l("A change could not be applied; it may still be usable."),
    ),
    Status.DELETING: StatusLook(_l("Deleting"), "secondary", _l("Its resources are being freed.")),
    Status.DELETED: StatusLook(_l("Deleted"), "secondary", _l("Its resources have been freed.")),
    Status.DELETE_FAILED: StatusLook(
        _l("Delete failed"),
        "danger",
        _l("Deleting it did not finish. Delete it again; a forced delete is offered too."),
    ),
    Status.UNKNOWN: StatusLook(
        _l("Unknown"), "secondary", _l("The orchestrator has lost track of it.")
    ),
}

# Phrases found in orchestrator reasons, and what they mean for the person reading them.
_NO_FLAVOUR = _l("No site offers a machine size matching the cores and memory asked.")
_TIMEOUT = _l("The cloud took too long to answer, so the attempt was abandoned.")
_NO_SLA = _l("Your group has no agreement with a cloud site that could host this.")
PLAIN_REASONS = (
    ("quota", _l("The cloud site has no room left under its quota for this request.")),
    ("no matching flavor", _NO_FLAVOUR),
    ("flavor", _NO_FLAVOUR),
    ("image", _l("No site has the operating system image this application needs.")),
    ("timeout", _TIMEOUT),
    ("timed out", _TIMEOUT),
    ("no sla", _NO_SLA),
    ("sla", _NO_SLA),
    ("unauthorized", _l("The cloud site did not accept the credentials it was given.")),
    ("forbidden", _l("The cloud site did not allow this request.")),
    (
        "failed to execute",
        _l("The job's command ended in an error, after every retry it was given."),
    ),
)


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
            return str(sentence)  # in the reader's language now (it may be stored)
    return None


# Any whitespace (``str.isspace``'s), searched for in one pass rather than tested per character.
_SPACE = re.compile(r"\s")


def is_web_address(value: Any) -> bool:
    """Whether ``value`` is an http(s) URL with a host: the only values that become links."""
    if not isinstance(value, str) or _SPACE.search(value.strip()):
        return False
    if "//" not in value:
        return False  # no host (``urlsplit`` finds one only after "//"): most outputs, at once
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
    # How many characters the backend gave, when more than were kept (``said``).
    cut: int | None = None

    @property
    def structured(self) -> bool:
        return isinstance(self.value, dict | list)


def as_text(value: Any) -> str:
    """A value as one string: strings as they are, the rest as indented JSON (for files)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _shown(name: str, value: Any, spec: OutputSpec | None) -> ShownOutput:
    cut = said.cut_of(value)
    if cut is not None:
        # Only its first characters were kept: shown as text, to copy or read, never as a link.
        label = (spec.label if spec else None) or display.output_label(name)
        text = value["text"]
        return ShownOutput(name, label, "copy", text, text, spec.description if spec else "", cut)
    show = spec.show if spec else "copy"
    text = as_text(value)
    # Only web addresses become links: an output could hold "javascript:" or anything else.
    if show == "link" and not is_web_address(value):
        show = "copy"
    if show == "ssh" and (not isinstance(value, str) or _SPACE.search(text)):
        show = "copy"
    if show == "copy" and isinstance(value, dict | list):
        show = "structured"
    if value is None or value == "":
        # Nothing given (a template's output no attribute filled): said, with nothing to copy.
        show = "empty"
    label = (spec.label if spec else None) or display.output_label(name)
    return ShownOutput(name, label, show, text, value, spec.description if spec else "")


def parsed_templates(revision_ids: set[int]) -> dict[int, ParsedTemplate]:
    """Parsed templates by revision id, in the current request's language
    (``ParsedTemplate.localised``); revisions unreadable now are skipped."""
    found = revisions.parsed_templates(set(revision_ids))
    return {revision_id: parsed.localised() for revision_id, parsed in found.items()}


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
    # A page's rows mostly share a few revisions: each one's outputs are named once.
    specs: dict[int | None, tuple[dict[str, OutputSpec], list[str]]] = {}
    for deployment in deployments:
        revision_id = deployment.revision_id
        found = specs.get(revision_id)
        if found is None:
            template = parsed.get(revision_id)
            by_name = {spec.name: spec for spec in template.outputs} if template else {}
            found = specs[revision_id] = (by_name, list(by_name))
        by_name, listed = found
        outputs = deployment.outputs or {}
        names = in_template_order(outputs, listed)
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
        return _("Yes") if value else _("No")
    if isinstance(value, str):
        return value or _("(empty)")
    if isinstance(value, list):
        return ", ".join(_setting_text(v) for v in value) or _("(none)")
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
    if not charge:
        return ""
    key = _summary_key(charge)
    if key is None:
        return _summary(charge)
    return cached("resources_summaries", SUMMARIES, key, lambda: _summary(charge))


def resources_cell(charge: dict | None) -> Markup:
    """The list's resources cell: each part of the summary kept on one line, the parts joined
    by commas; "—" when there is none."""
    key = _summary_key(charge or {})
    if key is None:
        return _cell(charge)
    return cached("resources_cells", SUMMARIES, key, lambda: _cell(charge))


def _cell(charge: dict | None) -> Markup:
    parts = [part for part in resources_summary(charge).split(" · ") if part]
    if not parts:
        return Markup("—")
    return Markup(", ").join(Markup('<span class="text-nowrap">{}</span>').format(p) for p in parts)


def _figures_key(charge: dict) -> tuple | None:
    """The figures a summary shows, with their types (2 and 2.5 cores read differently); None
    when a figure is not a plain number."""
    figures = (
        charge.get("nodes"),
        charge.get("cores", charge.get("cpus")),
        charge.get("memory"),
        charge.get("disk"),
        charge.get("gpus"),
    )
    if any(f is not None and type(f) not in (int, float) for f in figures):
        return None
    return tuple((type(f), f) for f in figures)


def _summary_key(charge: dict) -> tuple | None:
    """What a summary depends on: the reader's language and the figures it shows; None when a
    figure is not a plain number."""
    figures = _figures_key(charge)
    if figures is None or not has_app_context():
        return None
    return (get_locale(), *figures)


def page_cells() -> Callable[[dict | None], Markup]:
    """``resources_cell`` for the rows of one page, in one language: each charge's figures are
    worked out once, however many rows hold the same."""
    cells: dict[tuple, Markup] = {}

    def cell(charge: dict | None) -> Markup:
        key = _figures_key(charge or {})
        if key is None:
            return resources_cell(charge)
        found = cells.get(key)
        if found is None:
            found = cells[key] = resources_cell(charge)
        return found

    return cell


def _summary(charge: dict) -> str:
    from app.tosca.units import format_size

    parts = []
    nodes = charge.get("nodes")
    if isinstance(nodes, int) and nodes > 1:
        parts.append(ngettext("%(num)d machine", "%(num)d machines", nodes))
    cores = charge.get("cores", charge.get("cpus"))
    if cores:
        if float(cores).is_integer():
            parts.append(ngettext("%(num)d core", "%(num)d cores", int(cores)))
        else:
            parts.append(_("%(count)s cores", count=format_decimal(cores)))
    if isinstance(charge.get("memory"), int | float) and charge["memory"] > 0:
        parts.append(_("%(size)s memory", size=format_size(int(charge["memory"]))))
    if isinstance(charge.get("disk"), int | float) and charge["disk"] > 0:
        parts.append(_("%(size)s disk", size=format_size(int(charge["disk"]))))
    gpus = charge.get("gpus")
    if isinstance(gpus, int | float) and gpus > 0:
        parts.append(ngettext("%(num)d GPU", "%(num)d GPUs", int(gpus)))
    return " · ".join(parts)


def url_pattern(endpoint: str, key: str) -> str:
    """``url_for(endpoint, key=<id>)`` as a pattern with ``{}`` where the id goes: the list
    needs two addresses per row, and routing each one cost more than the rest of its row."""
    marker = 9_876_543_210_123
    # The templates' ``url_for``, which builds each address once per app and mount point.
    build = current_app.jinja_env.globals["url_for"]
    return build(endpoint, **{key: marker}).replace(str(marker), "{}")
