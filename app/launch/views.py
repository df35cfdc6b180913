"""The launch pages: the form of a catalogue template (with its live cost box), and relaunching
a deployment. Each translates HTTP and calls one verb of ``app.launch.workflow``."""

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from app.catalogue.forms import presets_data, tab_layout
from app.catalogue.loader import catalogue
from app.deployments import operations as deployments
from app.errors import PortalError
from app.launch import prefill, preview, workflow

# No prefix: the launch pages keep the addresses people know, under the catalogue and under
# My deployments.
bp = Blueprint("launch", __name__)

# Longest deployment name accepted on the launch form.
NAME_MAX = 120


def _visible_entry(slug: str):
    entry = catalogue().get(slug)
    if entry is None or not entry.visible_to(current_user):
        abort(404, "There is no such application in the catalogue, or it is not open to you.")
    return entry


def _initial_form(entry):
    if request.method == "POST":
        return prefill.form_class(entry)(), False
    if request.args.get("defaults"):
        return prefill.initial_form(entry, defaults=True)
    if earlier_id := request.args.get("from_deployment", type=int):
        # Edit and relaunch: the settings of a deployment the user may see (never its secrets).
        earlier = deployments.visible_deployment(current_user, earlier_id)
        return prefill.initial_form(entry, earlier_parameters=earlier.parameters or {})
    return prefill.initial_form(entry)


@bp.route("/catalogue/<slug>/", methods=["GET", "POST"])
@login_required
def launch(slug: str):
    entry = _visible_entry(slug)
    form, prefilled = _initial_form(entry)
    status = 200
    blocker = deployments.launch_blocker(current_user)
    launch_fields = _launch_fields(entry)
    if blocker and request.method == "POST":
        form.form_errors.append(blocker)
        status = 403
    elif form.validate_on_submit() and not launch_fields["errors"]:
        try:
            deployment = workflow.launch(
                current_user,
                entry,
                form.to_parameters(),
                name=launch_fields["name"],
                group=launch_fields["group"],
                generated=prefill.generated_inputs(form),
                remember=True,
            )
        except workflow.LaunchPending as error:
            form.form_errors.append(error.message)
            launch_fields["pending_id"] = error.deployment_id
            status = error.status_code
        except PortalError as error:
            form.form_errors.append(error.message)
            status = error.status_code
        else:
            flash(_launched_message(deployment), "success" if deployment.uuid else "warning")
            return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    elif request.method == "POST":
        status = 400
    return (
        render_template(
            "launch/launch.html",
            entry=entry,
            parsed=entry.parsed,
            form=form,
            tabs=tab_layout(entry.parsed),
            presets=presets_data(entry.parsed),
            summary=preview.summary(entry, form, group_name=request.form.get("group") or None),
            prefilled=prefilled,
            blocker=blocker,
            launch_fields=launch_fields,
        ),
        status,
    )


def _launch_fields(entry) -> dict:
    """The deployment's name and charged group, as posted (checked) or as first offered."""
    groups = deployments.groups_for(current_user)
    if request.method != "POST":
        remembered = deployments.remembered_group(current_user, entry.slug)
        return {
            "name": workflow.default_name(entry),
            "group": remembered,
            "groups": groups,
            "errors": {},
        }
    name = request.form.get("deployment_name", "").strip()
    group = request.form.get("group", "").strip() or None
    errors = {}
    if len(name) > NAME_MAX:
        errors["deployment_name"] = f"Keep the name to {NAME_MAX} characters or fewer."
    if group is not None and group not in groups:
        errors["group"] = "Choose one of your groups."
    return {"name": name, "group": group, "groups": groups, "errors": errors}


def _launched_message(deployment) -> str:
    if deployment.uuid:
        return f"{deployment.name} is being launched. Its status is shown below."
    return (
        f"The orchestrator did not confirm the launch of {deployment.name} in time. It may "
        "have started anyway: the portal is checking and will not submit it twice, so there "
        "is no need to launch again."
    )


@bp.route("/catalogue/<slug>/summary", methods=["POST"])
@login_required
def summary(slug: str):
    """The "what will be requested" box, recomputed as the form changes (htmx)."""
    entry = _visible_entry(slug)
    form = prefill.form_class(entry)()
    form.validate()
    # The group the launch would be charged to, when the form offers the choice.
    group = request.form.get("group") or None
    return render_template(
        "catalogue/_summary.html", summary=preview.summary(entry, form, group_name=group)
    )


@bp.post("/deployments/<int:deployment_id>/relaunch")
@login_required
def relaunch(deployment_id: int):
    """Launch the same template with the same settings again, under a new name."""
    deployment = deployments.visible_deployment(current_user, deployment_id)
    name = " ".join(request.form.get("name", "").split())[:255]
    if not name:
        flash("Give the new deployment a name; nothing was launched.", "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    try:
        launched = workflow.relaunch(current_user, deployment, name=name)
    except PortalError as error:
        if request.headers.get("HX-Request"):
            return render_template("deployments/_problem.html", problem=error.message), 200
        flash(error.message, "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    flash(f"{launched.name} is being launched with the same settings.", "success")
    return redirect(url_for("deployments.detail", deployment_id=launched.id))
