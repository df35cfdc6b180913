"""Templates as files: importing a folder (sub-folders included) and exporting the catalogue.

A folder is walked once, by ``walk``: every ``*.yaml``/``*.yml`` file beside an optional
``<name>.portal.yaml`` sidecar is a template whose slug comes from its path
(``private-net/single_vm.yaml`` becomes ``private-net-single-vm``). Each file gets its own
outcome and one file never stops the others.

An import never overwrites an admin's work: a template changed in the browser since its last
import keeps the browser version unless ``force`` is given. The last import of each template
is recorded on it (``source``, ``imported_revision_id``, ``imported_digest``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from flask import current_app
from sqlalchemy import select

from app import actors
from app.catalogue import revisions, routing
from app.catalogue.errors import CatalogueError
from app.catalogue.libraries import ensure_shipped
from app.catalogue.models import CatalogueTemplate
from app.config import PROJECT_ROOT
from app.extensions import db
from app.tosca.checks import other_dialect
from app.tosca.parsed import ParsedTemplate
from app.tosca.wording import N_, said

SIDECAR_SUFFIX = ".portal.yaml"
SUFFIXES = (".yaml", ".yml")
# Outcomes, in the words the report uses.
IMPORTED, UNCHANGED, INVALID, SKIPPED, KEPT, UNREADABLE, REFUSED = (
    "imported",
    "unchanged",
    "invalid",
    "skipped",
    "kept the browser version",
    "unreadable",
    "refused",
)


@dataclass(frozen=True)
class FoundFile:
    """A template file of a folder: its path relative to the folder, and its slug."""

    path: Path
    relative: str
    slug: str

    @property
    def sidecar(self) -> Path:
        return self.path.with_name(self.path.stem + SIDECAR_SUFFIX)


@dataclass(frozen=True)
class FileOutcome:
    """What importing one file did; iterates as (slug, text) for callers that want pairs."""

    relative: str
    slug: str
    outcome: str
    detail: str = ""

    @property
    def text(self) -> str:
        return f"{self.outcome}: {self.detail}" if self.detail else self.outcome

    def __iter__(self) -> Iterator[str]:
        return iter((self.slug, self.text))


def slug_for(relative: str) -> str:
    """The slug of a file path: lowercase, every run of other characters a single dash."""
    stem = relative.rsplit(".", 1)[0]
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")


def walk(folder: str | Path, exclude: str | Path | None = None) -> Iterator[FoundFile]:
    """Every template file under ``folder``, sorted; hidden folders, sidecars and the folder
    ``exclude`` (the shipped type copies, registered as libraries instead) are left out."""
    root = Path(folder)
    excluded = Path(exclude).resolve() if exclude else None
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        if excluded and path.resolve().is_relative_to(excluded):
            continue
        if path.suffix not in SUFFIXES or path.name.endswith(SIDECAR_SUFFIX):
            continue
        if path.is_file():
            yield FoundFile(path, relative, slug_for(relative))


def root_label(folder: str | Path) -> str:
    """How a folder of templates is named on the templates it gave: relative to the project
    when inside it (so a moved checkout keeps its catalogue), else its absolute path."""
    root = Path(folder).resolve()
    with contextlib.suppress(ValueError):
        return root.relative_to(PROJECT_ROOT).as_posix()
    return root.as_posix()


def digest(tosca_text: str, sidecar_text: str) -> str:
    return hashlib.sha256(f"{tosca_text}\0{sidecar_text}".encode()).hexdigest()


_TOPOLOGY = re.compile(r"^topology_template\s*:", re.MULTILINE)
_TYPE_SECTION = re.compile(r"^\w+_types\s*:", re.MULTILINE)
_VERSION = re.compile(r"^tosca_definitions_version\s*:\s*[\"']?([\w.-]+)", re.MULTILINE)


def _not_a_template(text: str) -> str | None:
    """Why a YAML file is not a template to import (a types file, a settings file), or None.

    Read from the text, not as YAML: a template that can't be parsed is still imported, and
    its revision shows where it breaks.
    """
    if "tosca_definitions_version" not in text:
        return "not a TOSCA template (no tosca_definitions_version)"
    version = _VERSION.search(text)
    # Checked before the type section: a foreign dialect's types are no library to register.
    dialect = other_dialect(version.group(1)) if version else None
    if dialect:
        return dialect
    if not _TOPOLOGY.search(text) and _TYPE_SECTION.search(text):
        return (
            "type definitions, not a template: register its folder as a type library "
            "(flask catalogue types add)"
        )
    return None


def _edited_in_browser(template: CatalogueTemplate) -> bool:
    latest = revisions.latest_revision(template)
    if latest is None:
        return False
    if template.imported_revision_id is not None:
        return latest.id != template.imported_revision_id
    # Imported before imports were recorded: the import's own revisions say so.
    return not latest.message.startswith("Imported from")


def import_file(
    found: FoundFile, author: str, *, force: bool, taken: dict, root: str = ""
) -> FileOutcome:
    """Import one template file of the folder labelled ``root``; never raises for what the
    file holds."""

    def outcome(kind: str, detail: str = "") -> FileOutcome:
        return FileOutcome(found.relative, found.slug, kind, detail)

    if not found.slug or len(found.slug) > 100:
        return outcome(SKIPPED, "its path gives no usable slug (1 to 100 letters or digits)")
    if found.slug in taken:
        return outcome(SKIPPED, f"its slug {found.slug} is taken by {taken[found.slug]}")
    try:
        tosca_text = found.path.read_text(encoding="utf-8")
        sidecar = found.sidecar
        sidecar_text = sidecar.read_text(encoding="utf-8") if sidecar.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        return outcome(UNREADABLE, str(error))
    reason = _not_a_template(tosca_text)
    if reason:
        return outcome(SKIPPED, reason)
    taken[found.slug] = found.relative
    template = db.session.scalar(
        select(CatalogueTemplate).where(CatalogueTemplate.slug == found.slug)
    )
    owner = template.source_root if template is not None else ""
    if owner and root and owner != root and not force:
        return outcome(
            SKIPPED,
            (
                f"{found.slug} is the template imported from {owner}/{template.source}; import "
                "both folders from a common parent so that their slugs differ, or use --force to "
                "replace it"
            ),
        )
    latest = revisions.latest_revision(template) if template else None
    file_digest = digest(tosca_text, sidecar_text)
    if latest and (latest.tosca_text, latest.sidecar_text) == (tosca_text, sidecar_text):
        _record(template, found, latest.id, file_digest, root)
        return outcome(UNCHANGED)
    if template is not None and not force and _edited_in_browser(template):
        detail = "edited in the browser since the last import; --force lets the file win"
        return outcome(KEPT, detail)
    try:
        revision = revisions.save_revision(
            found.slug,
            tosca_text,
            sidecar_text,
            author,
            said(N_("Imported from %(path)s"), path=found.relative),
            create=template is None,
        )
    except CatalogueError as error:
        # An unknown backend, or one that cannot deploy it: nothing was stored.
        db.session.rollback()
        return outcome(REFUSED, error.message)
    _record(revision.template, found, revision.id, file_digest, root)
    if not revision.valid:
        first = ParsedTemplate.from_json(revision.parsed).errors[0]
        return outcome(INVALID, f"revision {revision.number} not published: {first}")
    revisions.publish(found.slug, author, revision.number)
    return outcome(IMPORTED, f"revision {revision.number} published")


def _record(
    template: CatalogueTemplate, found: FoundFile, revision_id: int, file_digest: str, root: str
):
    template.source, template.source_root = found.relative, root
    template.imported_revision_id, template.imported_digest = revision_id, file_digest
    db.session.commit()


def import_folder(
    folder: str | Path, author: str = actors.FOLDER_IMPORT, *, force: bool = False
) -> list[FileOutcome]:
    """Import every template under ``folder``; one outcome per file, in path order.

    The shipped type libraries are registered first when missing, and the templates already
    stored are then validated against them (after an upgrade, their results were computed
    by older rules). A file that can't be read is reported as unreadable; a database failure
    on one file is rolled back and reported.
    """
    if ensure_shipped(author):
        revisions.revalidate_all(author)
    results, taken, root = [], {}, root_label(folder)
    for found in walk(folder, exclude=current_app.config["TOSCA_TYPES_DIR"]):
        try:
            results.append(import_file(found, author, force=force, taken=taken, root=root))
        except Exception as error:  # noqa: BLE001 - one file never stops the others
            db.session.rollback()
            results.append(FileOutcome(found.relative, found.slug, UNREADABLE, repr(error)))
    return results


def export_folder(folder: str | Path) -> list[str]:
    """Write each template's latest revision (and sidecar, naming the template's backend when
    it has one of its own) to ``folder``, at the path it was imported from or ``<slug>.yaml``;
    returns the file names written."""
    folder = Path(folder)
    written = []
    for template in db.session.scalars(select(CatalogueTemplate).order_by(CatalogueTemplate.slug)):
        revision = revisions.latest_revision(template)
        if revision is None:
            continue
        relative = template.source or f"{template.slug}.yaml"
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(revision.tosca_text, encoding="utf-8")
        written.append(relative)
        # The sidecar says which backend serves the template now, so that importing the
        # folder again keeps it there.
        sidecar_text = routing.sidecar_with_backend(revision.sidecar_text or "", template.backend)
        if sidecar_text:
            sidecar = path.with_name(path.stem + SIDECAR_SUFFIX)
            sidecar.write_text(sidecar_text, encoding="utf-8")
            written.append(sidecar.relative_to(folder).as_posix())
    return written
