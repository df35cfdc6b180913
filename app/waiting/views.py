"""The line's pages: leaving it from a request's page, and the operators' view of every line
a page at a time, with moving and removing (each with a reason the owner is told; the operator
comes back to the page they acted on)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from app.auth.roles import role_required
from app.bounds import page_number, whole_number
from app.deployments import operations as deployments
from app.deployments.access import Action
from app.errors import PortalError
from app.waiting import listing, operations

bp = Blueprint("waiting", __name__)


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


@bp.get("/lines/")
@role_required("operator")
def lines():
    """Every line, its requests in order, with their owners and how long they waited; one
    page of them (``?page=``; past the end, the last page, saying so)."""
    shown = listing.lines_page(page_number(request.args.get("page")))
    return render_template("waiting/lines.html", shown=shown)


def _back():
    """To the page of the lines the operator acted on."""
    page = page_number(request.form.get("page"))
    return redirect(url_for(".lines", page=page if page > 1 else None))


@bp.post("/lines/<int:deployment_id>/move")
@role_required("operator")
def move(deployment_id: int):
    deployment = listing.waiting_deployment(deployment_id)
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
@role_required("operator")
def remove(deployment_id: int):
    deployment = listing.waiting_deployment(deployment_id)
    try:
        operations.remove(current_user, deployment, request.form.get("reason", ""))
    except PortalError as error:
        flash(error.message, "danger")
    else:
        flash(_("%(name)s was removed from the line.", name=deployment.name), "success")
    return _back()
