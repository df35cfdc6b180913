"""Admin pages about one template's revisions: history, line listings, previews, diffs, and the
buttons that publish, hide, restore and set who sees it.

Every route is for admins only.
"""

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.roles import role_required
from app.backends import registry
from app.catalogue import operations
from app.catalogue.admin.blueprint import bp
from app.catalogue.admin.common import (
    STATES,
    attach_error,
    author,
    parsed_of,
    problems_view,
    shown_name,
    template_states_of,
)
from app.catalogue.admin.forms import (
    ActionForm,
    BackendForm,
    CompareForm,
    PublishForm,
    VisibilityForm,
)
from app.catalogue.diff import diff_revisions
from app.catalogue.forms import build_form_class, presets_data, tab_layout
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.catalogue.operations import CatalogueError
from app.catalogue.routing import serving_backend
from app.errors import NotFound
from app.extension_points import COST_PREVIEW
from app.extensions import db
from app.i18n import LANGUAGES
from app.tosca.parsed import ParsedTemplate, TemplateError
from app.tosca.translations import current_language, missing_words


def get_revision(slug: str, number: int) -> TemplateRevision:
    """Raises NotFound when the template or the revision doesn't exist."""
    template = operations.get_template(slug)
    revision = db.session.scalar(
        select(TemplateRevision).where(
            TemplateRevision.template_id == template.id, TemplateRevision.number == number
        )
    )
    if revision is None:
        raise NotFound(_("%(slug)s has no revision %(number)d.", slug=slug, number=number))
    return revision


def _page(name: str, template, **context):
    return render_template(
        f"catalogue/admin/{name}.html",
        template=template,
        states=template_states_of(template),
        state_labels=STATES,
        template_name=shown_name(template),
        action=ActionForm(),
        **context,
    )


@bp.route("/<slug>/")
@role_required("admin")
def detail(slug: str):
    return _detail_page(operations.get_template(slug))


def _detail_page(template, backend=None, status=200):
    latest = operations.latest_revision(template)
    compare = CompareForm(request.args, meta={"csrf": False})
    _compare_choices(compare, template)
    parsed = parsed_of(latest) if latest else None
    page = _page(
        "detail",
        template,
        latest=latest,
        revisions=list(reversed(template.revisions)),
        compare=compare,
        publish=PublishForm(formdata=None),
        visibility=VisibilityForm(
            formdata=None, groups=", ".join(parsed.visible_to) if parsed else ""
        ),
        backend=backend or BackendForm(formdata=None, backend=template.backend or ""),
        runs_on=registry.label(serving_backend(template)),
        parsed=parsed,
    )
    return page, status


@bp.route("/<slug>/backend", methods=["POST"])
@role_required("admin")
def backend(slug: str):
    template = operations.get_template(slug)
    form = BackendForm()
    if form.validate():
        try:
            operations.set_backend(slug, form.backend.data or None, author())
        except CatalogueError as error:
            attach_error(form, error)
        else:
            flash(
                _(
                    "%(slug)s runs on %(backend)s from now on.",
                    slug=slug,
                    backend=registry.label(serving_backend(template)),
                ),
                "success",
            )
            return redirect(url_for(".detail", slug=slug))
    # A refusal is shown beside the choice; the stored one stays as it was.
    db.session.rollback()
    return _detail_page(template, backend=form, status=400)


def _compare_choices(compare: CompareForm, template) -> None:
    choices = [
        (r.number, f"{r.number}: {r.shown_message[:60]}") for r in reversed(template.revisions)
    ]
    compare.a.choices = compare.b.choices = choices
    numbers = [r.number for r in template.revisions]
    if compare.b.data not in numbers and numbers:
        compare.b.data = numbers[-1]
    if compare.a.data not in numbers and numbers:
        compare.a.data = numbers[-2] if len(numbers) > 1 else numbers[-1]


@bp.route("/<slug>/revisions/<int:number>")
@role_required("admin")
def revision(slug: str, number: int):
    found = get_revision(slug, number)
    return _page("revision", found.template, shown=problems_view(found), revision=found)


@bp.route("/<slug>/revisions/<int:number>/preview")
@role_required("admin")
def preview(slug: str, number: int):
    found = get_revision(slug, number)
    stored = parsed_of(found)
    # The template's words in the language asked for (?language=it), else the admin's own.
    language = request.args.get("language")
    language = language if language in LANGUAGES else current_language()
    parsed = stored.localised(language)
    # Not cached: previews are rare, and a class per revision would crowd out the launch forms.
    form = build_form_class(parsed)(formdata=None)
    return _page(
        "preview",
        found.template,
        revision=found,
        parsed=parsed,
        form=form,
        tabs=tab_layout(parsed),
        presets=presets_data(parsed),
        summary=_summary(found, stored, form),
        publish=PublishForm(formdata=None, number=found.number),
        languages=LANGUAGES,
        language=language,
        missing=missing_words(stored, language)
        if language != current_app.config["DEFAULT_LOCALE"]
        else [],
    )


def _summary(revision: TemplateRevision, parsed: ParsedTemplate, form) -> dict:
    """The launch page's resource box, with the defaults; a message when it can't be computed.

    The box is the launch feature's (it prices against quotas): it plugs into
    ``COST_PREVIEW`` at start; without it the preview shows no box.
    """
    cost_preview = COST_PREVIEW.one()
    if cost_preview is None:
        return None
    template = revision.template
    entry = Entry(
        template.slug, revision.id, revision.number, parsed, revision.created_at, template.backend
    )
    try:
        return cost_preview(entry, form)
    except TemplateError as error:
        return {"error": error.message}


@bp.route("/<slug>/diff")
@role_required("admin")
def diff(slug: str):
    template = operations.get_template(slug)
    compare = CompareForm(request.args, meta={"csrf": False})
    _compare_choices(compare, template)
    if not template.revisions:
        raise NotFound(_("%(slug)s has no revisions to compare.", slug=slug))
    old, new = get_revision(slug, compare.a.data), get_revision(slug, compare.b.data)
    return _page(
        "diff", template, compare=compare, old=old, new=new, files=diff_revisions(old, new)
    )


@bp.route("/<slug>/publish", methods=["POST"])
@role_required("admin")
def publish(slug: str):
    form = PublishForm()
    if form.validate():
        try:
            revision = operations.publish(slug, author(), form.number.data or None)
        except CatalogueError as error:
            flash(error.message, "danger")
        else:
            flash(
                _("Published revision %(number)d: users see it now.", number=revision.number),
                "success",
            )
    else:
        flash(_("That revision number can't be read."), "danger")
    return redirect(url_for(".detail", slug=slug))


@bp.route("/<slug>/hide", methods=["POST"])
@role_required("admin")
def hide(slug: str):
    if ActionForm().validate():
        operations.hide(slug, author())
        flash(
            _(
                "%(slug)s is hidden from the catalogue. Publish a revision to show it again.",
                slug=slug,
            ),
            "success",
        )
    return redirect(url_for(".detail", slug=slug))


@bp.route("/<slug>/revisions/<int:number>/restore", methods=["POST"])
@role_required("admin")
def restore(slug: str, number: int):
    if ActionForm().validate():
        publish_it = request.form.get("publish", "1") != "0"
        revision = operations.restore(slug, number, author(), publish_it)
        live = revision.template.published_revision_id == revision.id
        if live:
            message = _(
                "Restored revision %(old)d as revision %(new)d, and published it.",
                old=number,
                new=revision.number,
            )
        else:
            message = _(
                "Restored revision %(old)d as revision %(new)d. Publish it when it is ready.",
                old=number,
                new=revision.number,
            )
        flash(message, "success" if revision.valid else "warning")
    return redirect(url_for(".detail", slug=slug))


@bp.route("/<slug>/visibility", methods=["POST"])
@role_required("admin")
def visibility(slug: str):
    form = VisibilityForm()
    if not form.validate():
        flash(" ".join(form.groups.errors), "danger")
        return redirect(url_for(".detail", slug=slug))
    try:
        revision = operations.set_visible_groups(slug, form.groups.groups, author())
    except CatalogueError as error:
        flash(error.message, "danger")
        return redirect(url_for(".detail", slug=slug))
    groups, number = ", ".join(form.groups.groups), revision.number
    live = revision.template.published_revision_id == revision.id
    if live and groups:
        message = _(
            "Visible to %(groups)s from now on (revision %(number)d, published).",
            groups=groups,
            number=number,
        )
    elif live:
        message = _(
            "Visible to everyone from now on (revision %(number)d, published).", number=number
        )
    elif groups:
        message = _(
            "Saved revision %(number)d: visible to %(groups)s once it is published.",
            groups=groups,
            number=number,
        )
    else:
        message = _(
            "Saved revision %(number)d: visible to everyone once it is published.", number=number
        )
    flash(message, "success" if live else "info")
    return redirect(url_for(".detail", slug=slug))
