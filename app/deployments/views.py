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


def _specs(revision_ids: set[int]) -> dict[int, dict[str, OutputSpec]]:
    """Output specs by revision id, read in one query; revisions unreadable now are skipped."""
    found: dict[int, dict[str, OutputSpec]] = {}
    if not revision_ids:
        return found
    rows = db.session.execute(
        select(TemplateRevision.id, TemplateRevision.parsed).where(
            TemplateRevision.id.in_(revision_ids)
        )
    )
    for revision_id, parsed in rows:
        try:
            outputs = ParsedTemplate.from_json(parsed).outputs
        except ValueError:
            continue  # stored in an older format; outputs fall back to "copy"
        found[revision_id] = {spec.name: spec for spec in outputs}
    return found


def shown_outputs(deployments: list[Deployment]) -> dict[int, list[ShownOutput]]:
    """Each deployment's outputs in the order its template lists them, by deployment id."""
    specs = _specs({d.revision_id for d in deployments if d.revision_id is not None})
    shown = {}
    for deployment in deployments:
        by_name = specs.get(deployment.revision_id, {})
        outputs = deployment.outputs or {}
        names = [n for n in by_name if n in outputs] + sorted(set(outputs) - set(by_name))
        shown[deployment.id] = [_shown(n, outputs[n], by_name.get(n)) for n in names]
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


def _detail_context(deployment: Deployment) -> dict:
    return {"deployment": deployment, "outputs": shown_outputs([deployment])[deployment.id]}


@bp.get("/<int:deployment_id>")
@login_required
def detail(deployment_id: int):
    deployment = owned_deployment(current_user, deployment_id)
    return render_template("deployments/detail.html", **_detail_context(deployment))


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
