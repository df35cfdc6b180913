"""The registered type libraries' files at public addresses, for backends that fetch imports.

The Infrastructure Manager downloads a template's imports itself, while a site's own type
library is known only to the portal (``libraries``). Each library file is served read-only at
``/types/<library>/<path>``, without a login since IM fetches anonymously, and
``imports_for_fetching_backends`` points a template's imports that the portal resolves from a
library at those addresses; every other import is left as it is. A served file's own absolute
imports are pointed at the portal the same way; its relative ones resolve against its address.

IM also downloads, while it creates, the Ansible playbooks that interface operations name as
their ``implementation`` (the INDIGO types name them on GitHub), and refuses the create when it
cannot. A library may hold those files too (the shipped INDIGO copies hold the ones the starter
templates' types name, under ``artifacts/``): such URLs, in a template or a served type file,
are pointed at the portal the same way, so a site whose IM cannot reach GitHub still deploys.
"""

from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import quote

from flask import Blueprint, Response, current_app, request
from flask_babel import gettext as _
from sqlalchemy import exists, select

from app.catalogue.libraries import library_set
from app.catalogue.models import TypeLibrary, TypeLibraryFile
from app.errors import NotFound
from app.extensions import db
from app.tosca.parsed import shipped_libraries
from app.tosca.type_imports import parsed_file, template_imports
from app.tosca.typelibs import LibrarySet, Resolved, nested_imports
from app.tosca.typelibs import TypeLibrary as Library
from app.tosca.yamlsafe import Limits, TemplateError

PREFIX = "/types"
CONTENT_TYPE = "application/yaml; charset=utf-8"  # RFC 9512
MAX_AGE = 300

bp = Blueprint("catalogue_types", __name__, url_prefix=PREFIX)

_IMPORTS_KEY = re.compile(r"^imports[ \t]*:", re.MULTILINE)
_ABSOLUTE = re.compile(r"^https?://", re.IGNORECASE)


def address(base_url: str, library: str, path: str) -> str:
    """The public address of a library file under the portal's root ``base_url``."""
    return f"{base_url.rstrip('/')}{PREFIX}/{quote(library, safe='')}/{quote(path, safe='/')}"


def imports_for_fetching_backends(
    text: str, base_url: str, libraries: LibrarySet | None = None, pinned: str | None = None
) -> str:
    """``text`` (a template as it is sent) with each import the portal resolves from a type
    library pointed at that file's public address under ``base_url`` (the portal's root as
    the backend reaches it); other imports, and the rest of the text, stay as they are.

    ``libraries`` defaults to the catalogue's; ``pinned`` is the sidecar's ``types_version``.
    A text that can't be read, or has no such import, is returned unchanged.
    """
    try:
        document, lines = Limits.from_config(current_app.config).load(text, duplicates=[])
    except TemplateError:
        return text
    libraries = library_set() if libraries is None else libraries
    return _rewritten(text, document, lines, base_url, libraries, pinned)


def _rewritten(text, document, lines, base_url, libraries, pinned=None) -> str:
    """``text`` with its imports and its operations' implementations that a library holds
    pointed at the portal."""
    text = _imports_rewritten(text, document, lines, base_url, libraries, pinned)
    return _implementations_rewritten(text, document, base_url, libraries, pinned)


def implementations(document: dict) -> list[str]:
    """The absolute URLs that ``document``'s interface operations name as implementations (or
    their dependencies) and its artifacts as files: in node and relationship types, and in
    the node templates of its topology."""
    holders: list = []
    for section in ("node_types", "relationship_types"):
        types = document.get(section)
        holders.extend(types.values() if isinstance(types, dict) else ())
    topology = document.get("topology_template")
    nodes = topology.get("node_templates") if isinstance(topology, dict) else None
    holders.extend(nodes.values() if isinstance(nodes, dict) else ())
    found: list[str] = []
    for holder in holders:
        if not isinstance(holder, dict):
            continue
        interfaces = holder.get("interfaces")
        for interface in interfaces.values() if isinstance(interfaces, dict) else ():
            for operation in interface.values() if isinstance(interface, dict) else ():
                found.extend(_operation_files(operation))
        artifacts = holder.get("artifacts")
        for artifact in artifacts.values() if isinstance(artifacts, dict) else ():
            found.extend(
                _operation_files(artifact.get("file") if isinstance(artifact, dict) else artifact)
            )
    return [url for url in dict.fromkeys(found) if _ABSOLUTE.match(url)]


def _operation_files(operation) -> list[str]:
    if isinstance(operation, str):
        return [operation]
    if not isinstance(operation, dict):
        return []
    implementation = operation.get("implementation")
    if isinstance(implementation, dict):  # TOSCA 1.2: primary and dependencies
        dependencies = implementation.get("dependencies")
        files = [implementation.get("primary")]
        files += dependencies if isinstance(dependencies, list) else []
        return [item for item in files if isinstance(item, str)]
    return [implementation] if isinstance(implementation, str) else []


def _implementations_rewritten(text, document, base_url, libraries, pinned=None) -> str:
    prefer = libraries.get(pinned) if pinned else None
    for url in implementations(document):
        resolved = libraries.resolve(url, prefer)
        if resolved is None:
            continue
        # The URL as a whole YAML scalar only, never a prefix of a longer one.
        pattern = re.compile(re.escape(url) + r"(?=[\s'\",\]}#]|$)")
        text = pattern.sub(address(base_url, resolved.library.name, resolved.path), text)
    return text


def _imports_rewritten(text, document, lines, base_url, libraries, pinned=None) -> str:
    raw = document.get("imports")
    entries = raw if isinstance(raw, list) else [raw] if raw else []
    prefer = libraries.get(pinned) if pinned else None
    found = template_imports(document, lines)
    changed, shown = False, []
    for entry, item in zip(entries, found, strict=True):
        resolved = libraries.resolve(item.url, prefer) if item.url else None
        if resolved is None:
            shown.append(entry)
            continue
        url = address(base_url, resolved.library.name, resolved.path)
        named = isinstance(entry, dict) and len(entry) == 1 and "file" not in entry
        shown.append({next(iter(entry)): url} if named else url)
        changed = True
    if not changed:
        return text
    return _with_imports(text, shown)


def _with_imports(text: str, entries: list) -> str:
    """``text`` with its top-level ``imports`` block replaced by ``entries`` (one JSON value a
    line, which YAML reads as it is). Comments inside the old block are dropped."""
    start = _IMPORTS_KEY.search(text)
    if start is None:
        return text
    lines = text[start.start() :].splitlines(keepends=True)
    end = 1
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() and not line[0].isspace() and not line.startswith(("-", "#")):
            break
        end = number + 1
    # Blank lines and comments at the block's end belong to what follows.
    while end > 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
        end -= 1
    block = "imports:\n" + "".join(f"  - {json.dumps(e, default=str)}\n" for e in entries)
    rest = "".join(lines[end:])
    return text[: start.start()] + block + rest


def _library_file(name: str, path: str) -> Library | None:
    """The library ``name`` holding only file ``path`` (None when it doesn't): a registered
    library, or, while none is registered, a shipped copy, as ``library_set`` resolves."""
    if db.session.scalar(select(exists().where(TypeLibrary.id.is_not(None)))):
        row = db.session.execute(
            select(TypeLibrary.version, TypeLibrary.patterns, TypeLibraryFile.text)
            .join(TypeLibraryFile, TypeLibraryFile.library_id == TypeLibrary.id)
            .where(TypeLibrary.name == name, TypeLibraryFile.path == path)
        ).first()
        if row is None:
            return None
        return Library(name, row.version, tuple(row.patterns), {path: row.text})
    library = shipped_libraries(current_app.config["TOSCA_TYPES_DIR"]).get(name)
    if library is None or path not in library.files:
        return None
    return Library(name, library.version, library.patterns, {path: library.files[path]})


def _safe(path: str) -> bool:
    parts = path.split("/")
    return "\\" not in path and all(part not in ("", ".", "..") for part in parts)


def base_url() -> str:
    """The portal's root as backends reach it: ``PORTAL_BASE_URL``, else this request's."""
    return current_app.config.get("PORTAL_BASE_URL") or request.url_root


@bp.route("/<library>/<path:path>")
def library_file(library: str, path: str):
    """A registered library's file as the portal holds it (its absolute imports pointed at the
    portal where a library holds them); 404 for anything else. Public: no login."""
    found = _library_file(library, path) if _safe(path) else None
    if found is None:
        raise NotFound(_("There is no such type library file."))
    text = found.files[path]
    try:
        document = parsed_file(Resolved("", found, path))
    except TemplateError:
        document = None
    if document is not None and (nested_imports(document) or implementations(document)):
        text = _rewritten(text, document, {}, base_url(), library_set())
    body = text.encode("utf-8")
    response = Response(body, content_type=CONTENT_TYPE)
    response.set_etag(hashlib.sha256(body).hexdigest())
    response.cache_control.public = True
    response.cache_control.max_age = MAX_AGE
    return response.make_conditional(request)
