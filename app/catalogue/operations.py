"""What admins do to the catalogue, in one place for views and the command line.

The verbs live in three modules that do not import one another in a circle: ``revisions``
(save, publish, hide, restore, visibility, re-validation), ``libraries`` (type libraries) and
``folders`` (import and export of template files). Each raises CatalogueError with a message
for the admin when it cannot proceed.
"""

from app.catalogue.errors import CatalogueError
from app.catalogue.folders import SIDECAR_SUFFIX, FileOutcome, export_folder, import_folder, walk
from app.catalogue.libraries import (
    add_library,
    ensure_shipped,
    files_from_archive,
    files_from_folder,
    get_library,
    library_set,
    list_libraries,
    remove_library,
    usage,
)
from app.catalogue.revisions import (
    SLUG_RE,
    check_slug,
    get_template,
    hide,
    latest_revision,
    parse,
    parse_and_route,
    publish,
    restore,
    revalidate_all,
    save_revision,
    set_backend,
    set_visible_groups,
)
from app.catalogue.routing import serving_backend

__all__ = [
    "SIDECAR_SUFFIX",
    "SLUG_RE",
    "CatalogueError",
    "FileOutcome",
    "add_library",
    "check_slug",
    "ensure_shipped",
    "export_folder",
    "files_from_archive",
    "files_from_folder",
    "get_library",
    "get_template",
    "hide",
    "import_folder",
    "latest_revision",
    "library_set",
    "list_libraries",
    "parse",
    "parse_and_route",
    "publish",
    "remove_library",
    "restore",
    "revalidate_all",
    "save_revision",
    "serving_backend",
    "set_backend",
    "set_visible_groups",
    "usage",
    "walk",
]
