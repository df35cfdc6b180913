"""My deployments: the list, one deployment's page, deleting, and the partials htmx polls.

Pages render from the database; only the partials (polled while something is in progress) and
the delete button talk to the orchestrator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from app.catalogue.metadata import humanise
from app.catalogue.models import TemplateRevision
from app.catalogue.parsed import OutputSpec, ParsedTemplate
from app.deployments.models import Deployment
from app.deployments.operations import (
    DeploymentError,
    delete,
    deployments_of,
    owned_deployment,
    refresh_statuses,
)
from app.extensions import db

bp = Blueprint("deployments", __name__, url_prefix="/deployments")

# The show kinds the list page repeats beside each deployment; the rest are on its own page.
LIST_KINDS = ("link", "copy", "ssh")


@dataclass(frozen=True)
class ShownOutput:
    """One output as a page shows it: ``show`` is the OutputSpec kind actually used."""

    name: str
    label: str
    show: str
    text: str
    description: str = ""


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _shown(name: str, value: Any, spec: OutputSpec | None) -> ShownOutput:
    show = spec.show if spec else "copy"
    text = _as_text(value)
    # Only web addresses become links: an output could hold "javascript:" or anything else.
    if show == "link" and not text.startswith(("https://", "http://")):
        show = "copy"
    if show == "ssh" and (not isinstance(value, str) or any(c.isspace() for c in text)):
        show = "copy"
    label = (spec.label if spec else None) or humanise(name)
    return ShownOutput(name, label, show, text, spec.description if spec else "")


@dataclass(frozen=True)
class ShownSetting:
    """One launch parameter as the deployment page shows it."""

    name: str
    label: str
    text: str


def _parsed(revision_ids: set[int]) -> dict[int, ParsedTemplate]:
    """Parsed templates by revision id, read in one query; revisions unreadable now are skipped."""
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
            found[revision_id] = ParsedTemplate.from_json(parsed)
        except ValueError:
            continue  # stored in an older format; names stand in for labels
    return found


def _in_template_order(values: dict, names: list[str]) -> list[str]:
    """``values``' keys in the order the template lists them, then any others sorted."""
    return [n for n in names if n in values] + sorted(set(values) - set(names))


def shown_outputs(
    deployments: list[Deployment], parsed: dict[int, ParsedTemplate] | None = None
) -> dict[int, list[ShownOutput]]:
    """Each deployment's outputs in the order its template lists them, by deployment id."""
    if parsed is None:
        parsed = _parsed({d.revision_id for d in deployments if d.revision_id is not None})
    shown = {}
    for deployment in deployments:
        template = parsed.get(deployment.revision_id)
        by_name = {spec.name: spec for spec in template.outputs} if template else {}
        outputs = deployment.outputs or {}
        names = _in_template_order(outputs, list(by_name))
        shown[deployment.id] = [_shown(n, outputs[n], by_name.get(n)) for n in names]
    return shown


def _setting_text(value: Any) -> str:
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return value or "(empty)"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def shown_settings(deployment: Deployment, template: ParsedTemplate | None) -> list[ShownSetting]:
    """The launch parameters under the labels the launch form gave them, in the form's order."""
    by_name = {spec.name: spec for spec in template.inputs} if template else {}
    parameters = deployment.parameters or {}
    shown = []
    for name in _in_template_order(parameters, list(by_name)):
        spec = by_name.get(name)
        label = (spec.label if spec else None) or humanise(name)
        shown.append(ShownSetting(name, label, _setting_text(parameters[name])))
    return shown


def _rows_context() -> dict:
    deployments = deployments_of(current_user)
    return {
        "deployments": deployments,
        "outputs": shown_outputs(deployments),
        "polling": any(d.in_progress for d in deployments),
        "list_kinds": LIST_KINDS,
    }


@bp.route("/")
@login_required
def index():
    return render_template("deployments/index.html", **_rows_context())


@bp.get("/rows")
@login_required
def rows():
    """The list's rows, after asking the orchestrator about what is in progress."""
    problem = refresh_statuses(current_user).problem
    return render_template("deployments/_rows.html", problem=problem, **_rows_context())


def _detail_context(deployment: Deployment, with_settings: bool = False) -> dict:
    """What the deployment page shows; the settings only for the whole page, not its polling."""
    parsed = _parsed({deployment.revision_id} if deployment.revision_id is not None else set())
    context = {
        "deployment": deployment,
        "outputs": shown_outputs([deployment], parsed)[deployment.id],
    }
    if with_settings:
        context["settings"] = shown_settings(deployment, parsed.get(deployment.revision_id))
    return context


@bp.get("/<int:deployment_id>")
@login_required
def detail(deployment_id: int):
    deployment = owned_deployment(current_user, deployment_id)
    return render_template(
        "deployments/detail.html", **_detail_context(deployment, with_settings=True)
    )


@bp.get("/<int:deployment_id>/status")
@login_required
def status(deployment_id: int):
    """The status and outputs part of the deployment page, refreshed from the orchestrator."""
    deployment = owned_deployment(current_user, deployment_id)
    problem = refresh_statuses(current_user, only=deployment).problem
    if deployment.deleted:
        # htmx follows this header with a full page load: the page no longer exists.
        return Response(status=204, headers={"HX-Redirect": url_for(".index")})
    return render_template(
        "deployments/_status.html", problem=problem, **_detail_context(deployment)
    )


@bp.get("/<int:deployment_id>/outputs/<name>")
@login_required
def download_output(deployment_id: int, name: str):
    """One output's value as a text file (for show kind "download")."""
    deployment = owned_deployment(current_user, deployment_id)
    if name not in (deployment.outputs or {}):
        abort(404)
    filename = f"{deployment.template_slug}-{name}.txt".replace('"', "")
    return Response(
        _as_text(deployment.outputs[name]),
        mimetype="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.post("/<int:deployment_id>/delete")
@login_required
def remove(deployment_id: int):
    deployment = owned_deployment(current_user, deployment_id)
    try:
        delete(current_user, deployment)
    except DeploymentError as error:
        flash(error.message, "danger")
        return redirect(url_for(".detail", deployment_id=deployment_id))
    flash(f"Deleting {deployment.name}; it disappears from this list once it is gone.", "info")
    return redirect(url_for(".index"))
