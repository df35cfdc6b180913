"""The catalogue as researchers see it: cards to browse, and a launch form per template."""

from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask_login import current_user, login_required

from app.catalogue import launching
from app.catalogue.forms import presets_data, tab_layout
from app.catalogue.loader import catalogue
from app.errors import PortalError

bp = Blueprint("catalogue", __name__, url_prefix="/catalogue")


def _visible_entry(slug: str):
    entry = catalogue().get(slug)
    if entry is None or not entry.visible_to(current_user):
        abort(404, "There is no such application in the catalogue, or it is not open to you.")
    return entry


@bp.route("/")
@login_required
def index():
    entries = catalogue().visible_entries(current_user)
    query, tag = request.args.get("q", "").strip(), request.args.get("tag", "").strip()
    shown = launching.filter_entries(entries, query, tag)
    page = max(request.args.get("page", 1, type=int), 1)
    size = current_app.config["CATALOGUE_PAGE_SIZE"]
    context = {
        "entries": shown[(page - 1) * size : page * size],
        "matching": len(shown),
        "remaining": max(len(shown) - page * size, 0),
        "next_page": page + 1,
        "total": len(entries),
        "query": query,
        "tag": tag,
    }
    if request.headers.get("HX-Request"):
        # A search replaces the results; "show more" appends the next cards.
        partial = "catalogue/_card_items.html" if page > 1 else "catalogue/_cards.html"
        return render_template(partial, **context)
    tags = sorted({t for entry in entries for t in entry.parsed.tags})
    return render_template("catalogue/index.html", tags=tags, **context)


@bp.route("/icons/<path:name>")
def icon(name: str):
    return send_from_directory(
        Path(current_app.config["CATALOGUE_DIR"]) / "icons", name, max_age=3600
    )


@bp.route("/<slug>/", methods=["GET", "POST"])
@login_required
def launch(slug: str):
    entry = _visible_entry(slug)
    form_class = launching.form_class(entry)
    prefilled = False
    if request.method == "POST":
        form = form_class()
    elif request.args.get("defaults"):
        form = form_class(formdata=None)
    else:
        remembered = launching.remembered_values(current_user, slug)
        form = (
            form_class.prefilled(remembered, formdata=None)
            if remembered
            else form_class(formdata=None)
        )
        prefilled = bool(remembered)

    status = 200
    if form.validate_on_submit():
        parameters = form.to_parameters()
        try:
            deployment = launching.launch(current_user, entry, parameters)
        except PortalError as error:
            form.form_errors.append(error.message)
            status = error.status_code
        else:
            flash(f"{entry.parsed.name} is being launched. Its status is shown below.", "success")
            return redirect(url_for("deployments.detail", deployment_id=deployment.id))
    elif request.method == "POST":
        status = 400
    return (
        render_template(
            "catalogue/launch.html",
            entry=entry,
            parsed=entry.parsed,
            form=form,
            tabs=tab_layout(entry.parsed),
            presets=presets_data(entry.parsed),
            summary=launching.summary(entry, form),
            prefilled=prefilled,
        ),
        status,
    )


@bp.route("/<slug>/summary", methods=["POST"])
@login_required
def summary(slug: str):
    """The "what will be requested" box, recomputed as the form changes (htmx)."""
    entry = _visible_entry(slug)
    form = launching.form_class(entry)()
    form.validate()
    return render_template("catalogue/_summary.html", summary=launching.summary(entry, form))
