"""Catalogue curation for admins: the list of templates, creating them and editing them.

Views translate HTTP and call one verb of ``operations`` each. Revisions, previews, diffs and
publishing live in ``revisions``, type libraries in ``libraries``. Every route is for admins.

Who sees a template stays in its sidecar (``visible_to``), so the history records it like any
other change: the "who sees it" form saves a revision with that one line rewritten
(``operations.set_visible_groups``), published at once when the latest revision was live.
"""

from dataclasses import dataclass
from datetime import datetime

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy import and_, func, select
from sqlalchemy.orm import aliased

from app import actors
from app.auth.roles import role_required
from app.catalogue import operations
from app.catalogue.admin.blueprint import bp
from app.catalogue.admin.common import (
    STATES,
    attach_error,
    author,
    parsed_summary,
    problems_view,
    shown_name,
    template_states,
    template_states_of,
)
from app.catalogue.admin.forms import BlankForm, EditForm, UploadForm, skeleton
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.operations import CatalogueError
from app.extensions import db
from app.tosca.wording import N_, said


@dataclass(frozen=True)
class Row:
    """One template on the list page, with the states it is in (see ``STATES``)."""

    slug: str
    name: str
    states: tuple[str, ...]
    latest_number: int | None
    published_number: int | None
    updated_by: str
    updated_at: datetime
    warnings: int = 0
    source: str = ""


def list_rows() -> list[Row]:
    """Every template with its latest and published revision numbers, in one query."""
    latest_numbers = (
        select(TemplateRevision.template_id, func.max(TemplateRevision.number).label("number"))
        .group_by(TemplateRevision.template_id)
        .subquery()
    )
    latest, published = aliased(TemplateRevision), aliased(TemplateRevision)
    query = (
        select(
            CatalogueTemplate,
            latest.number,
            latest.valid,
            latest.parsed,
            published.number,
        )
        .outerjoin(latest_numbers, latest_numbers.c.template_id == CatalogueTemplate.id)
        .outerjoin(
            latest,
            and_(
                latest.template_id == CatalogueTemplate.id, latest.number == latest_numbers.c.number
            ),
        )
        .outerjoin(published, published.id == CatalogueTemplate.published_revision_id)
        .order_by(CatalogueTemplate.slug)
    )
    rows = []
    for template, number, valid, parsed, published_number in db.session.execute(query):
        name, warnings = parsed_summary(parsed, template.slug)
        states = template_states(template.hidden, valid, number, published_number)
        rows.append(
            Row(
                slug=template.slug,
                name=name,
                states=states + (("warnings",) if warnings else ()),
                latest_number=number,
                published_number=published_number,
                updated_by=template.updated_by,
                updated_at=template.updated_at,
                warnings=warnings,
                source=template.source,
            )
        )
    return rows


@bp.route("/")
@role_required("admin")
def index():
    rows = list_rows()
    state = request.args.get("state", "")
    counts = {key: sum(1 for row in rows if key in row.states) for key in STATES}
    shown = [row for row in rows if state in row.states] if state in STATES else rows
    return render_template(
        "catalogue/admin/index.html",
        rows=shown,
        total=len(rows),
        counts=counts,
        states=STATES,
        state=state if state in STATES else "",
    )


def _upload_form(**options) -> UploadForm:
    """The upload form, its slug field with an id of its own: the skeleton's form beside it
    has a slug too, and with one id for both, both labels would name the skeleton's field."""
    form = UploadForm(**options)
    form.slug.id = form.slug.label.field_id = "upload-slug"
    return form


def _render_new(upload=None, blank=None, status=200):
    return (
        render_template(
            "catalogue/admin/new.html",
            upload=upload or _upload_form(formdata=None),
            blank=blank or BlankForm(formdata=None),
        ),
        status,
    )


@bp.route("/new")
@role_required("admin")
def new():
    return _render_new()


@bp.route("/new/upload", methods=["POST"])
@role_required("admin")
def create_from_upload():
    form = _upload_form()
    if not form.validate():
        return _render_new(upload=form, status=400)
    try:
        revision = operations.save_revision(
            form.slug.data,
            form.tosca_file.text,
            form.sidecar_file.text,
            author(),
            form.message.data or said(N_("Uploaded %(file)s"), file=form.tosca_file.data.filename),
            create=True,
        )
    except CatalogueError as error:
        attach_error(form, error)
        return _render_new(upload=form, status=400)
    return _after_save(revision)


@bp.route("/new/blank", methods=["POST"])
@role_required("admin")
def create_blank():
    form = BlankForm()
    if not form.validate():
        return _render_new(blank=form, status=400)
    tosca_text, sidecar_text = skeleton(form.slug.data)
    try:
        revision = operations.save_revision(
            form.slug.data,
            tosca_text,
            sidecar_text,
            author(),
            said(N_("Started from the skeleton")),
            create=True,
        )
    except CatalogueError as error:
        attach_error(form, error)
        return _render_new(blank=form, status=400)
    flash(
        _(
            "Created %(slug)s from the skeleton. Make it yours, then save.",
            slug=revision.template.slug,
        ),
        "success",
    )
    return redirect(url_for(".edit", slug=revision.template.slug))


def _after_save(revision):
    """Send the admin where the new revision needs them: its errors, or its preview."""
    slug = revision.template.slug
    if not revision.valid:
        flash(
            _(
                "Saved as revision %(number)d, but it has problems (listed below). Users keep "
                "seeing the published revision until it is fixed and published.",
                number=revision.number,
            ),
            "warning",
        )
        return redirect(url_for(".edit", slug=slug, _anchor="problems"))
    flash(
        _(
            "Saved revision %(number)d. Check the form below, then publish it.",
            number=revision.number,
        ),
        "success",
    )
    return redirect(url_for(".preview", slug=slug, number=revision.number))


@bp.route("/<slug>/edit", methods=["GET", "POST"])
@role_required("admin")
def edit(slug: str):
    template = operations.get_template(slug)
    latest = operations.latest_revision(template)
    if request.method == "GET":
        form = EditForm(
            formdata=None,
            base=latest.number if latest else "",
            tosca_text=latest.tosca_text if latest else "",
            sidecar_text=latest.sidecar_text if latest else "",
        )
        return _render_edit(template, latest, form)

    form = EditForm()
    if form.validate():
        if latest and form.base.data and form.base.data != str(latest.number):
            flash(
                _(
                    "%(author)s saved revision %(number)d while you were editing; yours is saved "
                    "after it. Compare them in the history.",
                    author=actors.who(latest.author),
                    number=latest.number,
                ),
                "info",
            )
        try:
            revision = operations.save_revision(
                slug,
                form.tosca_text.data,
                form.sidecar_text.data or "",
                author(),
                form.message.data or "",
            )
        except CatalogueError as error:
            attach_error(form, error)
        else:
            return _after_save(revision)
    # The admin's text goes back into the editor as sent: nothing typed is lost.
    return _render_edit(template, latest, form, status=400)


def _render_edit(template, latest, form, status=200):
    shown = None
    # Problems belong to the latest revision; they are shown only while the editor holds it.
    if latest is not None and form.tosca_text.data == latest.tosca_text:
        view = problems_view(latest)
        shown = view if view.parsed.errors or view.parsed.warnings else None
    return (
        render_template(
            "catalogue/admin/edit.html",
            template=template,
            latest=latest,
            form=form,
            shown=shown,
            states=template_states_of(template),
            state_labels=STATES,
            template_name=shown_name(template),
        ),
        status,
    )
