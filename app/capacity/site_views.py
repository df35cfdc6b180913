"""Adding, changing and removing the sites on the Capacity page, for operators: the pages
read the form and call ``operations``, which owns every rule (as for ``flask sites``)."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from app.auth.roles import role_required
from app.backends import registry
from app.capacity import operations
from app.capacity.forms import RemoveSiteForm, SiteForm, placement_hints
from app.capacity.operations import InvalidSite
from app.capacity.views import bp
from app.errors import NotFound


def _gone(error: NotFound) -> str:
    return _(
        "%(problem)s Someone may have removed it meanwhile; nothing was changed.",
        problem=error.message,
    )


def _form_page(form: SiteForm, name: str | None, status: int | None = None):
    """The add form (``name`` None) or the edit form of site ``name``; 400 when refused."""
    status = status or (400 if form.errors else 200)
    return render_template(
        "capacity/site_form.html", form=form, name=name, hints=placement_hints()
    ), status


@bp.route("/sites/new", methods=["GET", "POST"])
@role_required("operator")
def add_site():
    form = SiteForm()
    if form.validate_on_submit():
        try:
            site = operations.add_site(form.name.data, form.backend.data, form.placement.data)
        except InvalidSite as error:
            form.refused(error)
        else:
            flash(_("Site %(name)s added.", name=site.name), "success")
            return redirect(url_for("capacity.index"))
    return _form_page(form, None)


@bp.route("/sites/<name>/edit", methods=["GET", "POST"])
@role_required("operator")
def edit_site(name: str):
    if request.method == "GET":
        return _form_page(SiteForm(obj=operations.find_site(name)), name)
    form = SiteForm()
    status = None
    if form.validate_on_submit():
        try:
            site = operations.edit_site(
                name,
                new_name=form.name.data,
                backend=form.backend.data,
                placement=form.placement.data,
            )
        except InvalidSite as error:
            form.refused(error)
        except NotFound as error:
            form.form_errors.append(_gone(error))
            status = 404
        else:
            flash(_("Site %(name)s saved.", name=site.name), "success")
            return redirect(url_for("capacity.index"))
    return _form_page(form, name, status)


@bp.route("/sites/<name>/remove", methods=["GET", "POST"])
@role_required("operator")
def remove_site(name: str):
    form = RemoveSiteForm()
    if request.method == "GET":
        site = operations.find_site(name)
        return render_template(
            "capacity/remove_site.html",
            form=form,
            site=site,
            name=name,
            backend=registry.label(site.backend),
        )
    if form.validate_on_submit():
        try:
            operations.remove_site(name)
        except NotFound as error:
            form.form_errors.append(_gone(error))
            return render_template(
                "capacity/remove_site.html", form=form, site=None, name=name
            ), 404
        flash(
            _(
                "Site %(name)s removed, with what it had free. Deployments that went there "
                "keep the site they recorded.",
                name=name,
            ),
            "success",
        )
    return redirect(url_for("capacity.index"))
