"""My deployments: the list, one deployment's page, and the actions people take on them.

Pages and the partials htmx polls render from the database only; the sync worker and the
orchestrator's callbacks keep it current. Only the explicit actions (delete, reset, relaunch,
revealing secrets, and loading the log, the resources or the template on demand) reach the
orchestrator, through app.deployments.operations, with short timeouts.
"""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required

from app.auth.managers import managed_groups
from app.deployments import (
    access,
    jobs,
    list_rows,
    operations,
    panels,
    presenters,
    queries,
    secret_items,
    sharing,
    stamps,
    steps,
    words,
)
from app.deployments import status as statuses
from app.deployments.models import NAME_MAX_LENGTH, Deployment
from app.errors import NotFound, PortalError
from app.extension_points import DEPLOYMENT_LIST_PANELS
from app.extensions import db
from app.tosca import display

bp = Blueprint("deployments", __name__, url_prefix="/deployments")
# The list's change tag, sent by the portal with the rows and back by htmx with each poll.
STAMP_HEADER = "X-List-Stamp"
bp.record_once(lambda s: stamps.read_with_login(s.app, ("deployments.index", "deployments.rows")))

bp.add_app_template_filter(presenters.status_look, "status_look")
bp.add_app_template_filter(words.said, "said")
bp.add_app_template_filter(jobs.look_of, "deployment_look")
bp.add_app_template_filter(presenters.resources_summary, "resources_summary")
bp.add_app_template_filter(presenters.resources_cell, "resources_cell")
bp.add_app_template_test(presenters.is_web_address, "web_address")
bp.add_app_template_filter(display.output_label, "output_label")
bp.add_app_template_filter(display.credential_parts, "credential_parts")
bp.add_app_template_test(display.credential_parts, "credential")
bp.add_app_template_test(display.is_private_key, "private_key")


def _is_htmx() -> bool:
    return bool(request.headers.get("HX-Request"))


def _deployment(deployment_id: int, action: access.Action = access.Action.VIEW) -> Deployment:
    """The deployment the current user may do ``action`` to (``access``); 404 otherwise."""
    return operations.visible_deployment(_viewer(), deployment_id, action)


def _filters() -> queries.Filters:
    return queries.Filters.from_args(request.args, current_user.is_admin)


@bp.get("/")
@login_required
def index():
    filters = _filters()
    # The tag is read before the rows: a change landing in between then makes the next poll
    # answer in full, where a tag read after the rows would hide it from every poll.
    tag = _own_tag(filters)
    viewer = _viewer()
    context = list_rows.list_context(viewer, filters)
    templates = queries.templates_of(viewer, filters)
    return render_template(
        "deployments/index.html",
        templates=templates,
        manages_groups=bool(managed_groups(viewer)),
        panels=_list_panels(viewer),
        stamp=tag,
        **context,
    )


def _viewer():
    """The person logged in, as the object itself: the list asks who they are a few times per
    row, and each question through ``current_user``'s proxy found them again."""
    return current_user._get_current_object()


def _list_panels(viewer) -> list[tuple[str, dict]]:
    """The panels features above this one lend the list (the quotas' usage panel), through
    ``DEPLOYMENT_LIST_PANELS``: the page shows them without this feature knowing theirs."""
    return [
        (template, context_of(viewer)) for template, context_of in DEPLOYMENT_LIST_PANELS.each()
    ]


@bp.get("/rows")
@login_required
def rows():
    """The list's rows and pager alone, for htmx polling and live filtering.

    One's own list carries a tag built from one's change stamp (``hx-headers`` sends it back
    with each poll): a poll whose tag is still current is answered 204, which htmx leaves
    unswapped, without reading or rendering a row. Pages stay ``no-store`` (see app.security),
    so the tag travels in a header of its own rather than through the browser's cache.
    Admins looking at others' lists are answered in full. A full answer brings the usage
    panels along, swapped out of band: a deletion that completes frees its resources in the
    panel when it leaves the list, without a reload.
    """
    filters = _filters()
    tag = _own_tag(filters)
    if tag is not None and request.headers.get(STAMP_HEADER) == tag:
        return Response(status=204, headers={STAMP_HEADER: tag})
    viewer = _viewer()
    context = list_rows.list_context(viewer, filters)
    response = Response(
        render_template(
            "deployments/_rows.html",
            stamp=tag,
            panels=_list_panels(viewer),
            panels_oob=True,
            **context,
        )
    )
    if tag is not None:
        response.headers[STAMP_HEADER] = tag
    if _is_htmx() and not request.args.get("poll"):
        # A filter change: the address bar shows the full page with the same filters.
        response.headers["HX-Push-Url"] = url_for(".index", **filters.args())
    return response


def _own_tag(filters: queries.Filters) -> str | None:
    """The change tag of the viewer's own list as ``filters`` narrow it; None for others'."""
    if filters.owner or filters.shared:
        return None
    return stamps.own_etag(sorted(filters.args().items()))


def _detail_context(deployment: Deployment, revealed: dict[str, str] | None = None) -> dict:
    parsed = presenters.parsed_templates({deployment.revision_id} - {None})
    template = parsed.get(deployment.revision_id)
    # Once its delete has started, what it gave leads nowhere: nothing to open or copy.
    reachable = statuses.reachable(deployment.status, deleted=deployment.deleted)
    outputs = presenters.shown_outputs([deployment], parsed)[deployment.id] if reachable else []
    secrets = secret_items.secret_items(deployment, template)
    secret_names = {item.name for item in secrets}
    if revealed is not None:
        # Secret outputs an older record kept in plain text are shown the same way.
        plain = deployment.outputs or {}
        kept = {i.name: plain[i.name] for i in secrets if i.kind == "output" and i.name in plain}
        revealed = {**kept, **revealed}
    viewer = _viewer()
    events = steps.events_of(deployment)
    actors = {e.actor_id for e in events if e.actor_id} | {deployment.user_id}
    people = queries.usernames(actors, known=viewer)
    return {
        "name_max": NAME_MAX_LENGTH,
        "deployment": deployment,
        "page_backend": deployment.backend,
        "look": jobs.look_of(deployment),
        "plan": jobs.plan_of(deployment),
        "plain_reason": presenters.plain_reason(deployment.status_reason),
        "outputs": [o for o in outputs if o.name not in secret_names],
        "main_link": presenters.main_link(outputs) if reachable else None,
        "reachable": reachable,
        "secrets": secrets,
        "revealed": None if revealed is None else secret_items.revealed_secrets(revealed, template),
        "owner_view": deployment.user_id == viewer.id,
        "rights": access.rights(viewer, deployment),
        "access_why": access.why(viewer, deployment),
        "people": people,
        "steps": steps.timeline(events, people, jobs.step_looks(deployment)),
        "deployment_panels": panels.panels_for([deployment]),
        "site_shown": _site_shown(deployment.site),
        "resources": presenters.resources_summary(deployment.charge),
        "settings": presenters.shown_settings(deployment, template),
        "typed_secrets": secret_items.typed_secrets(template),
        "poll_seconds": current_app.config["DEPLOYMENTS_POLL_SECONDS"],
        "can_reset": statuses.resettable(deployment.status),
        "can_force": statuses.force_deletable(deployment.status),
    }


def _site_shown(site: str | None) -> str | None:
    """The name the Details give the recorded site: the known site's (the capacity feature's
    ``known_site``, which templates are given), else the recorded one; None when none is."""
    known_site = current_app.jinja_env.globals.get("known_site")
    known = known_site(site) if known_site and site else None
    return known.name if known else (site or None)


@bp.get("/<int:deployment_id>")
@login_required
def detail(deployment_id: int):
    deployment = _deployment(deployment_id)
    shares = sharing.shares_of(deployment)
    return render_template("deployments/detail.html", shares=shares, **_detail_context(deployment))


@bp.get("/<int:deployment_id>/status")
@login_required
def status(deployment_id: int):
    """The status, access details and timeline of the deployment page (polled by htmx)."""
    try:
        deployment = _deployment(deployment_id)
    except NotFound:
        gone = db.session.get(Deployment, deployment_id)
        if (
            gone is None
            or not gone.deleted
            or access.Action.VIEW not in access.rights(current_user, gone)
        ):
            raise
        # Deleted while the page was open: htmx follows this header to the list.
        return Response(status=204, headers={"HX-Redirect": url_for(".index")})
    return render_template("deployments/_status.html", **_detail_context(deployment))


@bp.route("/<int:deployment_id>/outputs/<name>", methods=["GET", "POST"])
@login_required
def download_output(deployment_id: int, name: str):
    """One output's value as a text file (for show kind "download"); a secret one (kept
    encrypted) only to its owner and co-owners, through a POST."""
    deployment = _deployment(deployment_id)
    values = dict(deployment.outputs or {})
    if name not in values and request.method == "POST":
        access.check(current_user, deployment, access.Action.REVEAL)
        try:
            values = operations.reveal_secrets(current_user, deployment)
        except PortalError as error:
            return _failed(deployment, error)
    if name not in values:
        abort(404)
    if request.args.get("part") == "key":
        # The private key inside a credential, as the file ssh -i takes.
        key = display.private_key_in(values[name])
        if key is None:
            abort(404)
        filename = f"{deployment.template_slug}-{deployment.id}-private-key.pem"
        body, mimetype = key if key.endswith("\n") else key + "\n", "application/x-pem-file"
    else:
        filename = f"{deployment.template_slug}-{name}.txt"
        body, mimetype = presenters.as_text(values[name]), "text/plain"
    return Response(
        body,
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{filename.replace(chr(34), "")}"'},
    )


@bp.post("/<int:deployment_id>/secrets")
@login_required
def reveal(deployment_id: int):
    """The kept secrets, decrypted for its owner and co-owners (a POST: never cached, logged)."""
    deployment = _deployment(deployment_id, access.Action.REVEAL)
    try:
        revealed = dict(operations.reveal_secrets(current_user, deployment))
    except PortalError as error:
        return _failed(deployment, error)
    context = _detail_context(deployment, revealed=revealed)
    if _is_htmx():
        return render_template("deployments/_secrets.html", **context)
    return render_template("deployments/detail.html", **context)


@bp.post("/<int:deployment_id>/secrets/forget")
@login_required
def forget(deployment_id: int):
    deployment = _deployment(deployment_id, access.Action.REVEAL)
    try:
        operations.forget_secrets(current_user, deployment)
    except PortalError as error:
        return _failed(deployment, error)
    flash(_("The portal no longer keeps this deployment's passwords and credentials."), "info")
    return redirect(url_for(".detail", deployment_id=deployment.id))


# The headings of the on-demand panels: for a service, and for a batch job.
_ON_DEMAND_TITLES = {
    "log": (_l("Deployment log"), _l("Job log")),
    "resources": (_l("Virtual machines and other resources"), _l("Jobs and containers")),
    "template": (_l("Template as submitted"), _l("Template as submitted")),
}


def _on_demand(deployment_id: int, what: str, fetch) -> str:
    """Render one on-demand panel (log, resources, template) fetched from the orchestrator."""
    deployment = _deployment(deployment_id)
    job = jobs.is_job(deployment)
    context = {
        "deployment": deployment,
        "title": _ON_DEMAND_TITLES[what][1 if job else 0],
        "job": job,
        # Why a job has no log yet: it has not run, or the orchestrator kept none of it.
        "job_started": job and jobs.has_started(deployment),
        "problem": None,
        "content": None,
    }
    try:
        context["content"] = fetch(current_user, deployment)
    except PortalError as error:
        context["problem"] = error.message
    partial = f"deployments/_{what}.html"
    if _is_htmx():
        return render_template(partial, **context)
    return render_template("deployments/on_demand.html", partial=partial, **context)


@bp.get("/<int:deployment_id>/log")
@login_required
def log(deployment_id: int):
    return _on_demand(deployment_id, "log", operations.fetch_log)


@bp.get("/<int:deployment_id>/resources")
@login_required
def resources(deployment_id: int):
    return _on_demand(deployment_id, "resources", operations.fetch_resources)


@bp.get("/<int:deployment_id>/template")
@login_required
def template(deployment_id: int):
    """The TOSCA text as submitted: stored at launch, fetched for deployments made elsewhere."""
    return _on_demand(deployment_id, "template", operations.fetch_template)


@bp.get("/<int:deployment_id>/delete")
@login_required
def confirm_delete(deployment_id: int):
    """The confirmation step before deleting (works without scripts)."""
    deployment = _deployment(deployment_id, access.Action.DELETE)
    return render_template("deployments/delete.html", **_detail_context(deployment))


@bp.post("/<int:deployment_id>/delete")
@login_required
def remove(deployment_id: int):
    deployment = _deployment(deployment_id, access.Action.DELETE)
    force = request.form.get("force") == "1"
    try:
        operations.delete(current_user, deployment, force=force)
    except PortalError as error:
        return _failed(deployment, error)
    flash(
        _(
            "Deleting %(name)s; it leaves this list once its resources are freed.",
            name=deployment.name,
        ),
        "info",
    )
    return redirect(url_for(".index"))


@bp.post("/<int:deployment_id>/reset")
@login_required
def reset(deployment_id: int):
    """Reset a stuck delete (the orchestrator's PATCH), so that it can be tried again."""
    deployment = _deployment(deployment_id, access.Action.DELETE)
    try:
        operations.reset_delete(current_user, deployment)
    except PortalError as error:
        return _failed(deployment, error)
    flash(_("The stuck delete was reset; you can delete the deployment again."), "info")
    return redirect(url_for(".detail", deployment_id=deployment.id))


def _failed(deployment: Deployment, error: PortalError):
    """Show ``error`` on the deployment's page (or as the htmx answer) and change nothing."""
    if _is_htmx():
        return render_template("deployments/_problem.html", problem=error.message), 200
    flash(error.message, "danger")
    return redirect(url_for(".detail", deployment_id=deployment.id))
