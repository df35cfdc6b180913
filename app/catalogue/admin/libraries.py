"""Admin pages for type libraries: the list with what uses each, uploading one as an archive,
removing one, and re-validating every template against the libraries as they now are.

Each change to a library re-validates the catalogue at once and stores the results, so no
page view ever runs the validator.
"""

from flask import flash, redirect, render_template, url_for

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
    message = f"Re-validated {len(changes)} revisions."
    if fixed:
        message += f" Now valid: {', '.join(fixed)}."
    if broken:
        message += f" Now with errors: {', '.join(broken)}."
    flash(message, "warning" if broken else "info")


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
    flash(f"Stored type library {library.name} ({len(files)} files).", "success")
    _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))


@bp.route("/libraries/<name>/remove", methods=["POST"])
@role_required("admin")
def remove_library(name: str):
    if ActionForm().validate():
        operations.remove_library(name)
        flash(f"Removed type library {name}.", "success")
        _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))


@bp.route("/libraries/revalidate", methods=["POST"])
@role_required("admin")
def revalidate():
    if ActionForm().validate():
        _flash_revalidated(operations.revalidate_all(author()))
    return redirect(url_for(".libraries"))
