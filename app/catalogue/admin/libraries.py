"""Admin pages for type libraries: the list with what uses each, uploading one as an archive,
removing one, and re-validating every template against the libraries as they now are.

Each change to a library re-validates the catalogue at once and stores the results, so no
page view ever runs the validator.
"""

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from app.auth.roles import role_required
from app.catalogue import operations
from app.catalogue.admin.blueprint import bp
from app.catalogue.admin.common import attach_error, author
from app.catalogue.admin.forms import ActionForm, LibraryForm
from app.catalogue.operations import CatalogueError
from app.tosca.typelibs import PATTERN_HELP


def _page(form=None, status=200):
    used, unresolved = operations.usage()
    return (
        render_template(
            "catalogue/admin/libraries.html",
            libraries=operations.list_libraries(),
            used=used,
            unresolved=unresolved,
            form=form or LibraryForm(formdata=None),
            action=ActionForm(),
            pattern_help=PATTERN_HELP,
        ),
        status,
    )


def _flash_revalidated(changes) -> None:
    broken = [f"{slug} {number}" for slug, number, was, now in changes if was and not now]
    fixed = [f"{slug} {number}" for slug, number, was, now in changes if now and not was]
    messages = [
        ngettext("Re-validated %(num)d revision.", "Re-validated %(num)d revisions.", len(changes))
    ]
    if fixed:
        messages.append(_("Now valid: %(revisions)s.", revisions=", ".join(fixed)))
    if broken:
        messages.append(_("Now with errors: %(revisions)s.", revisions=", ".join(broken)))
    # Each is a sentence of its own; joined with a space as sentences are in either language.
    flash(" ".join(messages), "warning" if broken else "info")


@bp.route("/libraries/")
@role_required("admin")
def libraries():
    return _page()


@bp.route("/libraries/", methods=["POST"])
@role_required("admin")
def upload_library():
    form = LibraryForm()
    if not form.validate():
        return _page(form, 400)
    storage = form.archive.data
    try:
        files = operations.files_from_archive(storage.read(), storage.filename or "")
        library = operations.add_library(
            form.name.data,
            files,
            form.patterns.patterns,
            author(),
            version=form.version.data or "",
            replace=form.replace.data,
        )
    except CatalogueError as error:
        attach_error(form, error)
        return _page(form, 400)
    flash(
        ngettext(
            "Stored type library %(name)s (%(num)d file).",
            "Stored type library %(name)s (%(num)d files).",
            len(files),
            name=library.name,
        ),
        "success",
    )
    _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))


@bp.route("/libraries/<name>/remove", methods=["POST"])
@role_required("admin")
def remove_library(name: str):
    if ActionForm().validate():
        operations.remove_library(name)
        flash(_("Removed type library %(name)s.", name=name), "success")
        _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))


@bp.route("/libraries/revalidate", methods=["POST"])
@role_required("admin")
def revalidate():
    if ActionForm().validate():
        _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))
