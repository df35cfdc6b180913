"""What admins do to the catalogue: save revisions, publish, hide, restore, import and export.

Each operation validates first (once per revision), writes, bumps the catalogue version so other
workers reload, and raises CatalogueError with a message for the admin when it cannot proceed.
"""

import json
import logging
import re
from pathlib import Path

from flask import current_app
from sqlalchemy import func, select

from app.auth.models import utcnow
from app.catalogue.cli import SIDECAR_SUFFIX
from app.catalogue.loader import bump_version, catalogue
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.parsed import Limits, ParsedTemplate, TemplateError, parse_template
from app.errors import NotFound, PortalError
from app.extensions import db

log = logging.getLogger(__name__)
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")


class CatalogueError(PortalError):
    pass


def parse(slug: str, tosca_text: str, sidecar_text: str = "") -> ParsedTemplate:
    """Parse and validate a template with the configured limits and type definitions."""
    config = current_app.config
    icons_dir = Path(config["CATALOGUE_DIR"]) / "icons"
    return parse_template(
        slug,
        tosca_text,
        sidecar_text or None,
        types_dir=config["TOSCA_TYPES_DIR"],
        limits=Limits.from_config(config),
        icons={path.name for path in icons_dir.glob("*.svg")},
    )


def check_slug(slug: str) -> str:
    slug = (slug or "").strip().lower()
    if not SLUG_RE.match(slug):
        raise CatalogueError(
            "Use 1 to 100 lowercase letters, digits and dashes, starting with a letter or digit.",
            field="slug",
        )
    return slug


def get_template(slug: str) -> CatalogueTemplate:
    template = db.session.scalar(select(CatalogueTemplate).where(CatalogueTemplate.slug == slug))
    if template is None:
        raise NotFound(f"There is no template called {slug!r}.")
    return template


def latest_revision(template: CatalogueTemplate) -> TemplateRevision | None:
    return template.revisions[-1] if template.revisions else None


def save_revision(
    slug: str,
    tosca_text: str,
    sidecar_text: str,
    author: str,
    message: str = "",
    *,
    create: bool = False,
) -> TemplateRevision:
    """Validate and store a new revision of ``slug`` (a new template if ``create``).

    The revision is stored even when invalid, so an admin never loses an edit; users keep seeing
    the published revision. Raises CatalogueError if the slug is taken (create) or unknown.
    """
    slug = check_slug(slug)
    template = db.session.scalar(select(CatalogueTemplate).where(CatalogueTemplate.slug == slug))
    if create and template is not None:
        raise CatalogueError(f"A template called {slug!r} exists already.", field="slug")
    if template is None:
        if not create:
            raise NotFound(f"There is no template called {slug!r}.")
        template = CatalogueTemplate(slug=slug, hidden=False)
        db.session.add(template)
        db.session.flush()
    parsed = parse(slug, tosca_text, sidecar_text)
    number = (
        db.session.scalar(
            select(func.max(TemplateRevision.number)).where(
                TemplateRevision.template_id == template.id
            )
        )
        or 0
    ) + 1
    revision = TemplateRevision(
        template=template,
        number=number,
        tosca_text=tosca_text,
        sidecar_text=sidecar_text or "",
        message=message.strip()[:500] or ("Created" if number == 1 else f"Revision {number}"),
        author=author,
        parsed=parsed.to_json(),
        valid=not parsed.errors,
    )
    db.session.add(revision)
    template.updated_at, template.updated_by = utcnow(), author
    _commit()
    log.info("%s saved revision %d of %s (valid: %s)", author, number, slug, revision.valid)
    return revision


def publish(slug: str, author: str, number: int | None = None) -> TemplateRevision:
    """Make a revision (the latest by default) the one users see, and show the template.

    Raises CatalogueError when that revision has errors.
    """
    template = get_template(slug)
    revision = _revision(template, number) if number else latest_revision(template)
    if revision is None:
        raise CatalogueError("This template has no revision to publish yet.")
    if not revision.valid:
        raise CatalogueError(
            f"Revision {revision.number} has errors; fix them and save before publishing."
        )
    template.published_revision_id = revision.id
    template.hidden = False
    template.updated_at, template.updated_by = utcnow(), author
    _commit()
    return revision


def hide(slug: str, author: str) -> None:
    """Take the template out of the users' catalogue; its revisions stay."""
    template = get_template(slug)
    template.hidden = True
    template.updated_at, template.updated_by = utcnow(), author
    _commit()


def restore(slug: str, number: int, author: str) -> TemplateRevision:
    """Save revision ``number``'s content as a new revision, and publish it if the template is live.

    The history is never rewritten: restoring adds a revision.
    """
    template = get_template(slug)
    old = _revision(template, number)
    revision = save_revision(
        slug, old.tosca_text, old.sidecar_text, author, f"Restored revision {number}"
    )
    if template.published_revision_id and not template.hidden and revision.valid:
        publish(slug, author, revision.number)
    return revision


def _revision(template: CatalogueTemplate, number: int) -> TemplateRevision:
    for revision in template.revisions:
        if revision.number == number:
            return revision
    raise NotFound(f"{template.slug} has no revision {number}.")


def _commit() -> None:
    bump_version()
    db.session.commit()
    catalogue().invalidate()


def import_folder(folder: str | Path, author: str = "import") -> list[tuple[str, str]]:
    """Load every ``*.yaml``/``*.yml`` template (and sidecar) of ``folder`` into the database.

    A template whose text and sidecar equal its latest revision is left alone; a new or changed
    one gets a revision, published when valid. Returns (slug, what happened) pairs.
    """
    results = []
    for path in sorted(Path(folder).glob("*.y*ml")):
        if path.name.endswith(SIDECAR_SUFFIX) or path.suffix not in (".yaml", ".yml"):
            continue
        slug = path.stem.lower()
        sidecar = path.with_name(path.stem + SIDECAR_SUFFIX)
        tosca_text = path.read_text(encoding="utf-8")
        sidecar_text = sidecar.read_text(encoding="utf-8") if sidecar.exists() else ""
        existing = db.session.scalar(
            select(CatalogueTemplate).where(CatalogueTemplate.slug == slug)
        )
        latest = latest_revision(existing) if existing else None
        if latest and (latest.tosca_text, latest.sidecar_text) == (tosca_text, sidecar_text):
            results.append((slug, "unchanged"))
            continue
        revision = save_revision(
            slug, tosca_text, sidecar_text, author, f"Imported from {path.name}",
            create=existing is None,
        )  # fmt: skip
        if revision.valid:
            publish(slug, author, revision.number)
            results.append((slug, f"revision {revision.number} published"))
        else:
            first = ParsedTemplate.from_json(revision.parsed).errors[0]
            results.append((slug, f"revision {revision.number} has errors: {first}"))
    return results


def export_folder(folder: str | Path) -> list[str]:
    """Write each template's latest revision (and sidecar) to ``folder``; returns the file names."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for template in db.session.scalars(select(CatalogueTemplate).order_by(CatalogueTemplate.slug)):
        revision = latest_revision(template)
        if revision is None:
            continue
        (folder / f"{template.slug}.yaml").write_text(revision.tosca_text, encoding="utf-8")
        written.append(f"{template.slug}.yaml")
        if revision.sidecar_text:
            sidecar = folder / f"{template.slug}{SIDECAR_SUFFIX}"
            sidecar.write_text(revision.sidecar_text, encoding="utf-8")
            written.append(sidecar.name)
    return written


def set_visible_groups(slug: str, groups: list[str], author: str) -> TemplateRevision:
    """Save a revision of the latest one whose sidecar shows the template to ``groups`` only.

    An empty list means everyone. When the latest revision is the live one, the new revision is
    published too, so the change applies at once without publishing anyone's pending edits.
    Raises CatalogueError when there is no revision yet or the sidecar can't be rewritten.
    """
    template = get_template(slug)
    latest = latest_revision(template)
    if latest is None:
        raise CatalogueError("This template has no revision yet.")
    was_live = template.published_revision_id == latest.id and not template.hidden
    sidecar_text = _with_visible_to(latest.sidecar_text or "", groups)
    revision = save_revision(
        slug, latest.tosca_text, sidecar_text, author,
        f"Visible to {', '.join(groups) or 'everyone'}",
    )  # fmt: skip
    if was_live and revision.valid:
        publish(slug, author, revision.number)
    return revision


def _with_visible_to(sidecar_text: str, groups: list[str]) -> str:
    """The sidecar with its top-level ``visible_to`` replaced, other lines (and comments) kept.

    Raises CatalogueError when the sidecar is not valid YAML, or when the rewrite would change
    anything but ``visible_to`` (an unusual layout): the admin then edits the text instead.
    """
    limits = Limits.from_config(current_app.config)
    problem = CatalogueError(
        "The portal metadata can't be read; fix it in the editor, then set the groups again."
    )
    try:
        before = limits.load(sidecar_text)[0] if sidecar_text.strip() else {}
    except TemplateError as error:
        raise problem from error
    # JSON strings are valid YAML flow scalars, quoted so no group name is read as another type.
    replacement = "visible_to: " + json.dumps(groups)
    kept, skipping, replaced = [], False, False
    for line in sidecar_text.splitlines():
        if skipping and line[:1] in (" ", "\t", "-"):
            continue  # the old value's continuation lines
        skipping = False
        if not replaced and re.match(r"visible_to\s*:", line):
            kept.append(replacement)
            skipping = replaced = True
        else:
            kept.append(line)
    if not replaced:
        kept.append(replacement)
    text = "\n".join(kept) + "\n"
    try:
        after = limits.load(text)[0]
    except TemplateError as error:
        raise problem from error
    if {**before, "visible_to": groups} != after:
        raise CatalogueError(
            "The visible_to entry of the portal metadata has an unusual layout; "
            "change it in the editor instead."
        )
    return text
