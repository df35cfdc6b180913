"""Type libraries as admins manage them: stored in the database, from a folder or an archive.

A library is stored whole (every YAML file with its path) with the URL patterns it answers
for (see ``typelibs``). Until an admin registers one, the shipped copies described by
``tosca-catalog/types/versions.yaml`` are used; ``flask catalogue import`` registers those
as libraries so that admins see and manage them like their own.
"""

from __future__ import annotations

import io
import json
import re
import stat
import tarfile
import zipfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from flask import current_app
from flask_babel import format_decimal
from flask_babel import gettext as _
from sqlalchemy import func, select

from app import actors
from app.catalogue.errors import CatalogueError
from app.catalogue.models import CatalogueTemplate, TemplateRevision, TypeLibrary, TypeLibraryFile
from app.clock import utcnow
from app.errors import NotFound
from app.extensions import db
from app.tosca.parsed import shipped_libraries
from app.tosca.typelibs import LibraryError, LibrarySet, compile_pattern
from app.tosca.typelibs import TypeLibrary as Library

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
MAX_FILES = 500
YAML_SUFFIXES = (".yaml", ".yml")


def library_set() -> LibrarySet:
    """The libraries templates are validated against: the registered ones, else the shipped."""
    rows = db.session.scalars(select(TypeLibrary).order_by(TypeLibrary.position, TypeLibrary.id))
    libraries = [
        Library(row.name, row.version, tuple(row.patterns), {f.path: f.text for f in row.files})
        for row in rows
    ]
    if libraries:
        return LibrarySet(libraries)
    return shipped_libraries(current_app.config["TOSCA_TYPES_DIR"])


def get_library(name: str) -> TypeLibrary:
    """Raises NotFound when there is no library called ``name``."""
    row = db.session.scalar(select(TypeLibrary).where(TypeLibrary.name == name))
    if row is None:
        raise NotFound(_("There is no type library called “%(name)s”.", name=name))
    return row


def list_libraries() -> list[TypeLibrary]:
    return list(db.session.scalars(select(TypeLibrary).order_by(TypeLibrary.position)))


def add_library(
    name: str,
    files: dict[str, str],
    patterns: list[str],
    author: str,
    *,
    version: str = "",
    replace: bool = False,
) -> TypeLibrary:
    """Store a library (or, with ``replace``, a new content for an existing one).

    Raises CatalogueError for a bad name, pattern or file set, or a name already taken.
    """
    name = (name or "").strip()
    if not NAME_RE.match(name):
        raise CatalogueError(
            _("Name the library with 1 to 100 letters, digits, dots, dashes or underscores."),
            field="name",
        )
    patterns = [p.strip() for p in patterns if p and p.strip()]
    if not patterns:
        raise CatalogueError(
            _("Give at least one URL pattern the library answers for."), "patterns"
        )
    for pattern in patterns:
        try:
            compile_pattern(pattern)
        except LibraryError as error:
            raise CatalogueError(str(error), field="patterns") from None
    if not files:
        raise CatalogueError(_("The library has no .yaml or .yml file."), field="files")
    row = db.session.scalar(select(TypeLibrary).where(TypeLibrary.name == name))
    if row is not None and not replace:
        raise CatalogueError(
            _("A type library called “%(name)s” exists already.", name=name), field="name"
        )
    if row is None:
        position = db.session.scalar(select(func.max(TypeLibrary.position))) or 0
        row = TypeLibrary(name=name, position=position + 1, created_at=utcnow())
        db.session.add(row)
    row.version, row.patterns = version.strip()[:200], patterns
    row.files = [TypeLibraryFile(path=path, text=text) for path, text in sorted(files.items())]
    row.updated_at, row.updated_by = utcnow(), author
    db.session.commit()
    return row


def remove_library(name: str) -> None:
    """Delete a library; templates keep their stored results until they are re-validated."""
    db.session.delete(get_library(name))
    db.session.commit()


def ensure_shipped(author: str = actors.FOLDER_IMPORT) -> list[str]:
    """Register each shipped library whose name is not taken; returns the names added."""
    added = []
    taken = set(db.session.scalars(select(TypeLibrary.name)))
    for library in shipped_libraries(current_app.config["TOSCA_TYPES_DIR"]).libraries:
        if library.name not in taken:
            add_library(
                library.name,
                dict(library.files),
                list(library.patterns),
                author,
                version=library.version,
            )
            added.append(library.name)
    return added


def usage() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """From the stored results of each template's latest revision: the slugs using each
    library, and the imports left unresolved by each slug."""
    latest = (
        select(TemplateRevision.template_id, func.max(TemplateRevision.number).label("number"))
        .group_by(TemplateRevision.template_id)
        .subquery()
    )
    rows = db.session.execute(
        select(CatalogueTemplate.slug, TemplateRevision.parsed)
        .join(TemplateRevision, TemplateRevision.template_id == CatalogueTemplate.id)
        .join(
            latest,
            (latest.c.template_id == TemplateRevision.template_id)
            & (latest.c.number == TemplateRevision.number),
        )
        .order_by(CatalogueTemplate.slug)
    )
    used: dict[str, list[str]] = {}
    unresolved: dict[str, list[str]] = {}
    for slug, parsed in rows:
        try:
            data = json.loads(parsed)
        except (TypeError, ValueError):
            continue
        for name in data.get("libraries") or []:
            used.setdefault(name, []).append(slug)
        if data.get("unresolved_imports"):
            unresolved[slug] = list(data["unresolved_imports"])
    return used, unresolved


def _checked_path(name: str) -> str | None:
    """A member's path inside the library, or None for what is not a type file."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        raise CatalogueError(
            _("“%(name)s” points outside the library; nothing was stored.", name=name)
        )
    if path.suffix not in YAML_SUFFIXES or any(p.startswith(".") for p in path.parts):
        return None
    return path.as_posix()


def _decoded(name: str, content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CatalogueError(
            _("“%(name)s” is not UTF-8 text; nothing was stored.", name=name)
        ) from None


def _without_common_folder(files: dict[str, str]) -> dict[str, str]:
    # An archive of a folder holds "folder/..." everywhere: paths count from inside it.
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        return {path.split("/", 1)[1]: text for path, text in files.items()}
    return files


def files_from_folder(folder: str | Path) -> dict[str, str]:
    """Every YAML file under ``folder`` by relative path; raises CatalogueError naming a file
    that can't be read."""
    root = Path(folder)
    if not root.is_dir():
        raise CatalogueError(_("%(path)s is not a folder.", path=str(root)))
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if not path.is_file() or _checked_path(relative) is None:
            continue
        try:
            files[relative] = _decoded(relative, path.read_bytes())
        except OSError as error:
            raise CatalogueError(
                _("%(path)s can't be read: %(error)s.", path=str(path), error=error.strerror)
            ) from None
    _check_size(files)
    return files


def files_from_archive(content: bytes, filename: str) -> dict[str, str]:
    """The YAML files of a .zip or .tar.gz archive, by path (a single top folder removed).

    Raises CatalogueError for another format, a member outside the archive's folder, a link,
    too many or too big files, or text that is not UTF-8.
    """
    limit = current_app.config["TYPE_LIBRARY_MAX_BYTES"]
    files: dict[str, str] = {}
    total = 0
    try:
        with _open_archive(content, filename) as (members, read):
            if len(members) > MAX_FILES * 4:
                raise CatalogueError(
                    _("The archive holds more than %(limit)d entries.", limit=MAX_FILES * 4)
                )
            for name, size, member in members:
                path = _checked_path(name)
                if path is None:
                    continue
                total += size
                if total > limit:
                    raise CatalogueError(
                        _(
                            "The archive's type files exceed %(limit)s bytes.",
                            limit=format_decimal(limit),
                        )
                    )
                files[path] = _decoded(name, read(member))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
        raise CatalogueError(
            _("The archive can't be read (%(error)s).", error=str(error))
        ) from None
    files = _without_common_folder(files)
    _check_size(files)
    return files


@contextmanager
def _open_archive(content: bytes, filename: str):
    """(members as (name, size, member), read(member) -> bytes) of a zip or tar archive."""
    if zipfile.is_zipfile(io.BytesIO(content)):
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            entries = archive.infolist()
            # Zip keeps a link as a file holding its target, marked only by the Unix mode.
            if any(stat.S_ISLNK(m.external_attr >> 16) for m in entries):
                raise CatalogueError(_("The archive holds links; upload plain files only."))
            members = [(m.filename, m.file_size, m) for m in entries if not m.is_dir()]
            yield members, archive.read
    elif filename.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(fileobj=io.BytesIO(content), mode="r:*") as archive:
            entries = archive.getmembers()
            if any(m.issym() or m.islnk() for m in entries):
                raise CatalogueError(_("The archive holds links; upload plain files only."))
            members = [(m.name, m.size, m) for m in entries if m.isfile()]
            yield members, lambda member: archive.extractfile(member).read()
    else:
        raise CatalogueError(_("Upload the folder as a .zip or .tar.gz archive."))


def _check_size(files: dict[str, str]) -> None:
    if len(files) > MAX_FILES:
        raise CatalogueError(
            _(
                "A library holds at most %(limit)d files; this has %(count)d.",
                limit=MAX_FILES,
                count=len(files),
            )
        )
