"""The line's pages: leaving it from a request's page, and the operators' view of every line
a page at a time, with moving and removing (each with a reason the owner is told; the operator
comes back to the page they acted on). A group's manager has the same page for the requests
charged to the groups they manage."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from app.auth.managers import managed_groups
from app.bounds import page_number, whole_number
from app.deployments import operations as deployments
from app.deployments.access import Action
from app.errors import PortalError
from app.lines import listing, operations

bp = Blueprint("lines", __name__)


@bp.post("/deployments/<int:deployment_id>/leave-line")
@login_required
def leave(deployment_id: int):
    """Leave the line: nothing is launched, and the request leaves the list."""
    deployment = deployments.visible_deployment(current_user, deployment_id, Action.DELETE)
    try:
        operations.leave(current_user, deployment)
    except PortalError as error:
        flash(error.message, "warning")
        return redirect(url_for("deployments.detail", deployment_id=deployment_id))
    flash(_("%(name)s left the line; nothing was launched.", name=deployment.name), "success")
    return redirect(url_for("deployments.index"))


def _lines_groups() -> frozenset[str] | None:
    """Whose requests the reader sees on the Lines page: everyone's for operators (None),
    those of the groups they manage for a group's manager; 403 for anyone else."""
    if current_user.is_operator:
        return None
    groups = managed_groups(current_user)
    if not groups:
        abort(403, _("The Lines page is for operators and for the managers of a group."))
    return groups


@bp.app_context_processor
def _lines_link():
    # Asked only by the navigation bar, for people who are not operators.
    return {"sees_lines": lambda: bool(managed_groups(current_user))}


@bp.get("/lines/")
@login_required
def lines():
    """Every line, its requests in order, with their owners and how long they waited; one
    page of them (``?page=``; past the end, the last page, saying so)."""
    groups = _lines_groups()
    shown = listing.lines_page(
        page_number(request.args.get("page")), reader=current_user, groups=groups
    )
    return render_template("lines/lines.html", shown=shown)


def _back():
    """To the page of the lines the operator acted on."""
    page = page_number(request.form.get("page"))
    return redirect(url_for(".lines", page=page if page > 1 else None))


@bp.post("/lines/<int:deployment_id>/move")
@login_required
def move(deployment_id: int):
    deployment = listing.steerable(current_user, deployment_id)
    try:
        place = operations.move(
            current_user,
            deployment,
            request.form.get("place", type=whole_number) or 0,
            request.form.get("reason", ""),
        )
    except PortalError as error:
        flash(error.message, "danger")
    else:
        flash(
            _("%(name)s is now at place %(place)d.", name=deployment.name, place=place), "success"
        )
    return _back()


@bp.post("/lines/<int:deployment_id>/remove")
@login_required
def remove(deployment_id: int):
    deployment = listing.steerable(current_user, deployment_id)
    try:
        operations.remove(current_user, deployment, request.form.get("reason", ""))
    except PortalError as error:
        flash(error.message, "danger")
    else:
        flash(_("%(name)s was removed from the line.", name=deployment.name), "success")
    return _back()
