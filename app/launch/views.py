"""The launch pages: the form of a catalogue template (with its live cost box), and relaunching
a deployment. Each translates HTTP into one request (``request.LaunchRequest``) and calls one
verb: ``workflow.launch``, ``changing.change``, ``relaunching.relaunch`` or
``taking_over.take_over``."""

from contextlib import nullcontext

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from app.bounds import whole_number
from app.caches import remembering
from app.catalogue.forms import field_name, tab_layout, with_preset
from app.catalogue.loader import catalogue
from app.deployments import operations as deployments
from app.deployments.access import Action
from app.deployments.models import NAME_MAX_LENGTH
from app.deployments.status import Status
from app.errors import PortalError
from app.launch import changing, decision, prefill, preview, relaunching, taking_over, workflow
from app.launch.request import LaunchRequest, LeaseChoice
from app.leases import launching as lease_launching
from app.quotas.errors import QuotaExceeded
from app.text import one_line_problem

# No prefix: the launch pages keep the addresses people know, under the catalogue and under
# My deployments.
bp = Blueprint("launch", __name__)


def _visible_entry(slug: str):
    entry = catalogue().get(slug)
    if entry is None or not entry.visible_to(current_user):
        abort(404, _("There is no such application in the catalogue, or it is not open to you."))
    return entry


def _initial_form(entry, chosen: dict | None):
    if chosen is not None:
        # A preset button pressed without scripts: the same form, the preset's values put in.
        return prefill.form_class(entry)(formdata=with_preset(request.form, chosen)), False
    if request.method == "POST":
        return prefill.form_class(entry)(), False
    if request.args.get("defaults"):
        return prefill.initial_form(entry, defaults=True)
    if earlier_id := request.args.get("from_deployment", type=whole_number):
        # Edit and relaunch: the settings of a deployment the user may see (never its secrets).
        earlier = deployments.visible_deployment(current_user, earlier_id)
        return prefill.initial_form(entry, earlier_parameters=earlier.parameters or {})
    return prefill.initial_form(entry)


@bp.route("/catalogue/<slug>/", methods=["GET", "POST"])
@login_required
def launch(slug: str):
    # Showing the form writes nothing: the lease policy read for its duration field is read
    # once for the box's budgets too (``app.caches.remembering``). A post may launch, so it
    # reads afresh.
    with remembering() if request.method == "GET" else nullcontext():
        return _launch(slug)


def _launch(slug: str):
    entry = _visible_entry(slug)
    parsed = entry.parsed
    presets = prefill.presets(entry)
    chosen = _chosen_preset(presets)
    form, prefilled = _initial_form(entry, chosen)
    status, quota_refusal = 200, None
    blocker = deployments.launch_blocker(current_user, entry.serving_backend)
    launch_fields = _launch_fields(entry)
    # The group a launch is charged to when none is chosen (``checks.chosen_group``): the box
    # counts the same pool as the check at submit.
    charged = launch_fields["group"] or next(iter(launch_fields["groups"]), None)
    lease = lease_launching.launch_offer(
        entry.slug,
        charged,
        request.form.get("lease_duration") if request.method == "POST" else None,
    )
    if lease.error and chosen is None:
        launch_fields["errors"]["lease_duration"] = lease.error
    if chosen is not None:
        pass  # nothing is launched: the person looks at the preset's values first
    elif blocker and request.method == "POST":
        form.form_errors.append(blocker)
        status = 403
    elif form.validate_on_submit() and not launch_fields["errors"]:
        replaces = request.form.get("replaces", type=whole_number)
        wanted = request.form.get("wait_in_line") == "1" or replaces is not None
        asked = LaunchRequest(
            current_user,
            entry,
            form.to_parameters(),
            name=launch_fields["name"],
            group=launch_fields["group"],
            site=launch_fields["site"],
            generated=frozenset(prefill.generated_inputs(form)),
            lease=LeaseChoice(lease.minutes),
            remember=True,
        )
        try:
            if replaces is not None and decision.lines_open():
                deployment = changing.change(asked, replaces)
            else:
                deployment = workflow.launch(asked, wait=wanted and decision.lines_open())
        except workflow.LaunchPending as error:
            form.form_errors.append(error.message)
            launch_fields["pending_id"] = error.deployment_id
            status = error.status_code
        except QuotaExceeded as error:
            status, quota_refusal = error.status_code, error.message
        except PortalError as error:
            if error.field == "site":
                launch_fields["errors"]["site"] = error.message
            else:
                form.form_errors.append(error.message)
            status = error.status_code
        else:
            in_line = deployment.status == Status.WAITING
            tone = "success" if deployment.uuid or in_line else "warning"
            flash(_launched_message(deployment), tone)
            return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    elif request.method == "POST":
        status = 400
    summary = preview.summary(
        entry, form, group_name=charged, site=launch_fields["site"], lease_minutes=lease.minutes
    )
    if "site" in launch_fields["errors"] and not summary["sites"]:
        # No list of sites to show it beside: it goes with the form's own errors.
        form.form_errors.append(launch_fields["errors"]["site"])
    if quota_refusal:
        form.form_errors.append(quota_refusal)
        _mark_over_quota(form, summary["misfit_inputs"])

    return (
        render_template(
            "launch/launch.html",
            replaces=request.values.get("replaces", type=whole_number),
            entry=entry,
            page_backend=entry.serving_backend,
            parsed=parsed,
            form=form,
            tabs=tab_layout(parsed),
            presets=presets,
            chosen_preset=chosen,
            summary=summary,
            prefilled=prefilled,
            blocker=blocker,
            launch_fields=launch_fields,
            lease=lease,
            name_max=NAME_MAX_LENGTH,
        ),
        status,
    )


def _mark_over_quota(form, names: list[str]) -> None:
    """Mark the fields that size what went over the quota, so that their tab says so and the
    page opens on the first of them."""
    for name in names:
        field = form._fields.get(field_name(name))
        if field is not None:
            field.errors = [*field.errors, _("Over your quota: choose less here.")]


def _chosen_preset(presets: list[dict]) -> dict | None:
    """The preset whose button was pressed on a form sent without scripts, if one was."""
    if request.method != "POST":
        return None
    number = request.form.get("apply_preset", type=whole_number)
    if number is None or not 0 <= number < len(presets):
        return None
    return presets[number]


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
            "site": None,
        }
    name = request.form.get("deployment_name", "").strip()
    group = request.form.get("group", "").strip() or None
    errors = {}
    if problem := one_line_problem(request.form.get("deployment_name"), _("Name")):
        errors["deployment_name"] = problem
    elif len(name) > NAME_MAX_LENGTH:
        errors["deployment_name"] = _(
            "Keep the name to %(count)d characters or fewer.", count=NAME_MAX_LENGTH
        )
    if group is not None and group not in groups:
        errors["group"] = _("Choose one of your groups.")
    site = request.form.get("site", "").strip() or None
    return {"name": name, "group": group, "groups": groups, "errors": errors, "site": site}


def _launched_message(deployment) -> str:
    if deployment.status == Status.WAITING:
        return _(
            "%(name)s waits in line: it starts by itself when the resources it needs come "
            "back, and you are told then.",
            name=deployment.name,
        )
    if deployment.uuid:
        return _("%(name)s is being launched. Its status is shown below.", name=deployment.name)
    return str(deployment.backend_words.unconfirmed_launch) % {"name": deployment.name}


@bp.route("/catalogue/<slug>/summary", methods=["POST"])
@login_required
def summary(slug: str):
    """The "what will be requested" box, recomputed as the form changes (htmx)."""
    entry = _visible_entry(slug)
    form = prefill.form_class(entry)()
    form.validate()
    # The group the launch would be charged to, when the form offers the choice.
    group = request.form.get("group") or None
    site = request.form.get("site", "").strip() or None
    # The box writes nothing: the lease policy is read once for the offer and the budgets.
    with remembering():
        lease = lease_launching.launch_offer(entry.slug, group, request.form.get("lease_duration"))
        box = preview.summary(entry, form, group_name=group, site=site, lease_minutes=lease.minutes)
    return render_template("catalogue/_summary.html", summary=box)


@bp.post("/deployments/<int:deployment_id>/relaunch")
@login_required
def relaunch(deployment_id: int):
    """Launch the same template with the same settings again, under a new name."""
    deployment = deployments.visible_deployment(current_user, deployment_id, Action.RELAUNCH)
    if problem := one_line_problem(request.form.get("name"), _("Name")):
        flash(_("%(problem)s Nothing was launched.", problem=problem), "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    name = " ".join(request.form.get("name", "").split())[:NAME_MAX_LENGTH]
    if not name:
        flash(_("Give the new deployment a name; nothing was launched."), "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    try:
        launched = relaunching.relaunch(current_user, deployment, name=name)
    except PortalError as error:
        if request.headers.get("HX-Request"):
            return render_template("deployments/_problem.html", problem=error.message), 200
        flash(error.message, "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    flash(_("%(name)s is being launched with the same settings.", name=launched.name), "success")
    return redirect(url_for("deployments.detail", deployment_id=launched.id))


@bp.post("/deployments/<int:deployment_id>/take-over")
@login_required
def take_over(deployment_id: int):
    """Become the owner of a deployment whose owner's account is disabled (the page's Take
    over button); anyone who may not take it over is answered 404."""
    deployment = deployments.visible_deployment(current_user, deployment_id, Action.TAKE_OVER)
    try:
        taking_over.take_over(current_user, deployment.id)
    except PortalError as error:
        flash(error.message, "danger")
        return redirect(url_for("deployments.detail", deployment_id=deployment_id))
    flash(_("You own %(name)s now; it is charged to you.", name=deployment.name), "success")
    return redirect(url_for("deployments.detail", deployment_id=deployment_id))
