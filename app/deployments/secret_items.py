"""The secrets a deployment page offers: which ones can be revealed, how they read once their
owner asked, and which the person typed (kept nowhere, so only named)."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any

from flask_babel import gettext as _

from app.deployments.models import Deployment
from app.deployments.presenters import in_template_order
from app.tosca import display
from app.tosca.metadata import humanise
from app.tosca.parsed import ParsedTemplate


@dataclass(frozen=True)
class SecretItem:
    """A secret the deployment page offers to reveal on click (its value is not loaded)."""

    name: str
    label: str
    kind: str  # "generated" (an input the portal generated) or "output"


def secret_items(deployment: Deployment, template: ParsedTemplate | None) -> list[SecretItem]:
    """The secrets kept for ``deployment``, named after the template, without decrypting them."""
    items = []
    inputs = template.inputs if template else []
    outputs = template.outputs if template else []
    if deployment.secrets_sealed:
        for spec in inputs:
            if spec.generate and spec.name not in (deployment.parameters or {}):
                label = spec.label or humanise(spec.name)
                items.append(SecretItem(spec.name, label, "generated"))
        if not items:
            items.append(SecretItem("", _("Generated passwords"), "generated"))
    plain = deployment.outputs or {}
    named = False
    for spec in outputs:
        if spec.show == "secret" and (deployment.secret_outputs_sealed or spec.name in plain):
            label = spec.label or display.output_label(spec.name)
            items.append(SecretItem(spec.name, label, "output"))
            named = True
    if deployment.secret_outputs_sealed and not named:
        items.append(SecretItem("", _("Credentials the deployment returned"), "output"))
    return items


@dataclass(frozen=True)
class RevealedSecret:
    """One decrypted secret as the page shows it once its owner asked."""

    name: str
    label: str
    show: str  # "copy", "structured" or "download"
    value: Any


def revealed_secrets(values: dict[str, Any], template: ParsedTemplate | None) -> list:
    """Decrypted ``values`` under the template's labels: generated inputs first, then outputs."""
    labels: dict[str, tuple[str, str]] = {}
    if template is not None:
        for spec in template.inputs:
            labels[spec.name] = (spec.label or humanise(spec.name), "copy")
        for spec in template.outputs:
            labels[spec.name] = (spec.label or display.output_label(spec.name), spec.show)
    order = list(labels)
    shown = []
    for name in in_template_order(values, order):
        label, show = labels.get(name, (display.output_label(name), "copy"))
        value = values[name]
        if isinstance(value, str) and value[:1] in "[{":
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        if show != "download":
            show = "structured" if isinstance(value, dict | list) else "copy"
        shown.append(RevealedSecret(name, label, show, value))
    return shown


def typed_secrets(template: ParsedTemplate | None) -> list[str]:
    """Labels of the required secrets a person types at launch: the portal does not keep
    them, so relaunching as is cannot work (editing and relaunching can)."""
    from app.deployments.secrets import secret_inputs

    generated = secret_inputs(template)
    return [
        spec.label or humanise(spec.name)
        for spec in (template.inputs if template else [])
        if spec.name in generated
        and not generated[spec.name]
        and spec.required
        and not spec.has_default
    ]
