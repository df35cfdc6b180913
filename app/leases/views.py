"""Lease pages: extending from a deployment's page, the launch form's end-time sentence, and
the operators' policy pages (levels, history, deletes stuck at expiry)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from app.auth.roles import role_required
from app.errors import NotFound, PortalError
from app.leases import editing, launching, stuck
from app.leases.durations import parse_duration
from app.leases.errors import InvalidPolicy
from app.leases.forms import PolicyForm
from app.leases.operations import extend as extend_lease
from app.leases.policy import FIELDS, level_label, spoken

bp = Blueprint("leases", __name__)


def _back(deployment_id: int):
    target = request.form.get("next", "")
    if target == "list":
        return redirect(url_for("deployments.index"))
    return redirect(url_for("deployments.detail", deployment_id=deployment_id))


@bp.post("/deployments/<int:deployment_id>/extend")
@login_required
def extend(deployment_id: int):
    """Extend a lease (a plain form: works without scripts). Operators and admins may extend
    past the policy with ``override``, a reason and a duration."""
    override = request.form.get("override") == "1"
    try:
        by = None
        if override and request.form.get("by", "").strip():
            by = parse_duration(request.form["by"], field="by", label=_("Extend by"))
        lease = extend_lease(
            current_user,
            deployment_id,
            override=override,
            by=by,
            reason=request.form.get("reason"),
        )
    except NotFound:
        raise  # not theirs to extend: the 404 anyone gets for a deployment they cannot see
    except PortalError as error:
        flash(error.message, "danger")
        return _back(deployment_id)
    from app.leases.clock_text import shown

    flash(_("Extended: it now ends %(end)s.", end=shown(lease.ends_at)), "success")
    return _back(deployment_id)


@bp.get("/leases/offer")
@login_required
def offer():
    """The launch form's sentence on when the deployment would end (htmx, as it is typed)."""
    context = launching.launch_offer(
        request.args.get("template", ""),
        request.args.get("group") or None,
        request.args.get("lease_duration"),
    )
    return render_template("leases/_launch.html", lease=context)


@bp.route("/leases/", methods=["GET", "POST"])
@role_required("operator")
def policies():
    """Every level set, one level's form (``?template=&group=``), the history, and deletes
    stuck at expiry."""
    slug = (request.values.get("template") or "").strip()
    group = (request.values.get("group") or "").strip()
    stored = {(row.template_slug, row.group_name): row.values for row in editing.all_policies()}
    form = (
        PolicyForm()
        if request.method == "POST"
        else PolicyForm.showing(stored.get((slug, group), {}), formdata=None)
    )
    status = 200
    if request.method == "POST":
        changes = form.changes() if form.validate() else None
        if changes is not None:
            try:
                change = editing.set_policy(
                    current_user, slug, group, changes, form.reason.data, replace=True
                )
            except InvalidPolicy as error:
                target = getattr(form, error.field, None) if error.field else None
                (target.errors if target is not None else form.form_errors).append(error.message)
            else:
                flash(
                    _("Policy of %(level)s saved.", level=level_label(slug, group))
                    if change
                    else _("Nothing changed."),
                    "success" if change else "info",
                )
                return redirect(url_for(".policies", template=slug, group=group))
        status = 400
    return (
        render_template(
            "leases/policies.html",
            form=form,
            fields=FIELDS,
            slug=slug,
            group=group,
            level=level_label(slug, group),
            levels=[(s, g, level_label(s, g), spoken(values)) for (s, g), values in stored.items()],
            history=editing.history(limit=50),
            spoken=spoken,
            level_label=level_label,
            stuck=stuck.stuck_deployments(),
        ),
        status,
    )
