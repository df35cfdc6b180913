"""What admins do to templates: save revisions, publish, hide, restore, choose who sees them,
and re-validate everything after a type library changed.

Each operation validates first (once per revision), writes, bumps the catalogue version so other
workers reload, and raises CatalogueError with a message for the admin when it cannot proceed.
"""

import io
import logging
import re

from flask import current_app
from flask_babel import gettext as _
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString
from sqlalchemy import func, select

from app.backends import registry
from app.catalogue import routing
from app.catalogue.errors import CatalogueError
from app.catalogue.judging import parse, parse_and_route
from app.catalogue.libraries import library_set
from app.catalogue.loader import bump_version, catalogue
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.clock import utcnow
from app.errors import NotFound
from app.extensions import db
from app.locks import lock_rows
from app.tosca.parsed import Limits, ParsedTemplate, TemplateError
from app.tosca.typelibs import LibrarySet
from app.tosca.wording import N_, english, said

log = logging.getLogger(__name__)
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")


def check_slug(slug: str) -> str:
    slug = (slug or "").strip().lower()
    if not SLUG_RE.match(slug):
        raise CatalogueError(
            _(
                "Use 1 to 100 lowercase letters, digits and dashes, starting with a letter or "
                "digit."
            ),
            field="slug",
        )
    return slug


def get_template(slug: str) -> CatalogueTemplate:
    template = db.session.scalar(select(CatalogueTemplate).where(CatalogueTemplate.slug == slug))
    if template is None:
        raise NotFound(_("There is no template called “%(slug)s”.", slug=slug))
    return template


def latest_revision(template: CatalogueTemplate) -> TemplateRevision | None:
    return template.revisions[-1] if template.revisions else None


def save_revision(
    slug: str,
    tosca_text: str,
    sidecar_text: str,
    author: str,
    message: str | dict = "",
    *,
    create: bool = False,
) -> TemplateRevision:
    """Validate and store a new revision of ``slug`` (a new template if ``create``).

    ``message`` is the admin's own text, or the portal's words (``wording.said``), kept to be
    translated when shown.

    The revision is stored even when invalid, so an admin never loses an edit; users keep seeing
    the published revision. Raises CatalogueError if the slug is taken (create) or unknown, and
    when the revision routes the template to a backend that is unknown or cannot deploy it, or
    the backend serving the template cannot deploy it (``routing.route``): then nothing is saved.
    """
    slug = check_slug(slug)
    template = db.session.scalar(select(CatalogueTemplate).where(CatalogueTemplate.slug == slug))
    if create and template is not None:
        raise CatalogueError(
            _("A template called “%(slug)s” exists already.", slug=slug), field="slug"
        )
    if template is None and not create:
        raise NotFound(_("There is no template called “%(slug)s”.", slug=slug))
    libraries = library_set()
    latest = latest_revision(template) if template is not None else None
    backend, parsed = parse_and_route(
        template,
        slug,
        tosca_text,
        sidecar_text,
        routing.said_backend(latest.parsed if latest else None),
        libraries,
    )
    if template is None:
        template = CatalogueTemplate(slug=slug, hidden=False)
        db.session.add(template)
        db.session.flush()
    template.backend = backend
    # Two admins saving at once (from any hosts) each get the next number, in turn.
    lock_rows(select(CatalogueTemplate.id).where(CatalogueTemplate.id == template.id))
    number = (
        db.session.scalar(
            select(func.max(TemplateRevision.number)).where(
                TemplateRevision.template_id == template.id
            )
        )
        or 0
    ) + 1
    if isinstance(message, str) and message.strip():
        words, text = None, message.strip()[:500]
    else:
        words = message or (
            said(N_("Created")) if number == 1 else said(N_("Revision %(number)d"), number=number)
        )
        text = english(words["msgid"], words["params"])[:500]
    revision = TemplateRevision(
        template=template,
        number=number,
        tosca_text=tosca_text,
        sidecar_text=sidecar_text or "",
        message=text,
        message_words=words,
        author=author,
        parsed=parsed.to_json(),
        valid=not parsed.errors,
        validated_at=utcnow(),
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
        raise CatalogueError(_("This template has no revision to publish yet."))
    if not revision.valid:
        raise CatalogueError(
            _(
                "Revision %(number)d has errors; fix them and save before publishing.",
                number=revision.number,
            )
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


def restore(slug: str, number: int, author: str, publish_it: bool = True) -> TemplateRevision:
    """Save revision ``number``'s content as a new revision, and publish it if the template is
    live and ``publish_it`` (the admin's confirmation said which).

    The history is never rewritten: restoring adds a revision.
    """
    template = get_template(slug)
    old = _revision(template, number)
    revision = save_revision(
        slug,
        old.tosca_text,
        old.sidecar_text,
        author,
        said(N_("Restored revision %(number)d"), number=number),
    )
    if publish_it and template.published_revision_id and not template.hidden and revision.valid:
        publish(slug, author, revision.number)
    return revision


def _revision(template: CatalogueTemplate, number: int) -> TemplateRevision:
    for revision in template.revisions:
        if revision.number == number:
            return revision
    raise NotFound(_("%(slug)s has no revision %(number)d.", slug=template.slug, number=number))


def _commit() -> None:
    bump_version()
    db.session.commit()
    catalogue().invalidate()


def set_visible_groups(slug: str, groups: list[str], author: str) -> TemplateRevision:
    """Save a revision of the latest one whose sidecar shows the template to ``groups`` only.

    An empty list means everyone. When the latest revision is the live one, the new revision is
    published too, so the change applies at once without publishing anyone's pending edits.
    Raises CatalogueError when there is no revision yet or the sidecar can't be rewritten.
    """
    template = get_template(slug)
    latest = latest_revision(template)
    if latest is None:
        raise CatalogueError(_("This template has no revision yet."))
    was_live = template.published_revision_id == latest.id and not template.hidden
    sidecar_text = _with_visible_to(latest.sidecar_text or "", groups)
    revision = save_revision(
        slug,
        latest.tosca_text,
        sidecar_text,
        author,
        said(N_("Visible to %(groups)s"), groups=", ".join(groups))
        if groups
        else said(N_("Visible to everyone")),
    )
    if was_live and revision.valid:
        publish(slug, author, revision.number)
    return revision


def _with_visible_to(sidecar_text: str, groups: list[str]) -> str:
    """The sidecar with its top-level ``visible_to`` replaced; comments and layout kept.

    Raises CatalogueError when the sidecar is not a readable YAML mapping: the admin then
    fixes it in the editor.
    """
    limits = Limits.from_config(current_app.config)
    problem = CatalogueError(
        _("The portal metadata can't be read; fix it in the editor, then set the groups again.")
    )
    try:
        if sidecar_text.strip():
            # The same limits and checks as every sidecar read.
            limits.load(sidecar_text, strict_keys=True)
    except TemplateError as error:
        raise problem from error
    yaml = YAML()  # round-trip: comments, order and quoting of the rest survive
    yaml.preserve_quotes = True
    yaml.width = 4096
    try:
        document = yaml.load(sidecar_text) if sidecar_text.strip() else CommentedMap()
    except YAMLError as error:
        raise problem from error
    if not isinstance(document, CommentedMap):
        raise problem
    # Quoted, so that no group name is read as another type ("yes", "1.0") by YAML 1.1.
    value = CommentedSeq(DoubleQuotedScalarString(group) for group in groups)
    value.fa.set_flow_style()
    old = document.get("visible_to")
    if isinstance(old, CommentedSeq) and len(old) and old.ca.items.get(len(old) - 1):
        # A comment after a block list belongs to its last item; keep it after the new value.
        trailing = old.ca.items[len(old) - 1][0]
        if trailing is not None:
            document.ca.items.setdefault("visible_to", [None, None, None, None])[2] = trailing
    document["visible_to"] = value
    out = io.StringIO()
    yaml.dump(document, out)
    text = out.getvalue()
    try:
        after = limits.load(text, strict_keys=True)[0]
    except TemplateError as error:
        raise problem from error
    if after.get("visible_to") != list(groups):
        raise problem
    return text


def set_backend(slug: str, backend: str | None, author: str) -> CatalogueTemplate:
    """Route the template to ``backend`` (None: the site's default) from now on.

    Raises CatalogueError (on the field ``backend``) when the name is unknown, or the backend
    that would serve the template cannot deploy its latest or its published revision (its
    node types, or what it would refuse in the published one); nothing is changed then.
    """
    template = get_template(slug)
    if backend is not None:
        routing.check_name(backend, "backend")
    serving = backend or current_app.config["DEFAULT_BACKEND"]
    libraries = library_set()
    revisions = (latest_revision(template), template.published_revision)
    for revision in {r.id: r for r in revisions if r is not None}.values():
        pinned = _pinned(revision)
        problem = routing.refusal(serving, revision.tosca_text, libraries, pinned)
        if problem:
            raise CatalogueError(problem, field="backend")
    if routing.judge_for(backend) != routing.judge_for(template.backend):
        _judge_again(template, revisions, backend, libraries)
    template.backend = backend
    template.updated_at, template.updated_by = utcnow(), author
    _commit()
    log.info("%s routed %s to %s", author, slug, backend or "the default backend")
    return template


def _judge_again(template, revisions, backend: str | None, libraries: LibrarySet) -> None:
    """Store the template's ``revisions`` as ``backend`` judges them. Raises CatalogueError,
    changing nothing, when that backend would refuse the published one, which people launch."""
    judged = [
        (
            revision,
            parse(template.slug, revision.tosca_text, revision.sidecar_text, libraries, backend),
        )
        for revision in {r.id: r for r in revisions if r is not None}.values()
    ]
    for revision, parsed in judged:
        if parsed.errors and revision.id == template.published_revision_id:
            raise CatalogueError(
                _(
                    "%(backend)s would refuse the published revision %(number)d: %(problem)s",
                    backend=registry.label(backend or current_app.config["DEFAULT_BACKEND"]),
                    number=revision.number,
                    problem=parsed.errors[0].shown,
                ),
                field="backend",
            )
    for revision, parsed in judged:
        revision.parsed, revision.valid = parsed.to_json(), not parsed.errors
        revision.validated_at = utcnow()


def _pinned(revision: TemplateRevision) -> str | None:
    """The type library the revision's sidecar pins (read loosely from its stored result)."""
    try:
        return ParsedTemplate.from_json(revision.parsed).types_version
    except (TypeError, ValueError):
        return None


def revalidate_all(author: str) -> list[tuple[str, int, bool, bool]]:
    """Validate again every template's latest and published revision against the current type
    libraries, and store the results.

    The text of a revision never changes; only what is known about it does. A published
    revision that now has errors stays published (users keep it); admins see the errors.
    Returns (slug, revision number, was valid, is valid) for each revision checked.
    """
    libraries = library_set()
    changes = []
    for template in db.session.scalars(select(CatalogueTemplate).order_by(CatalogueTemplate.slug)):
        revisions = {
            r.id: r
            for r in (latest_revision(template), template.published_revision)
            if r is not None
        }
        for revision in revisions.values():
            parsed = parse(
                template.slug,
                revision.tosca_text,
                revision.sidecar_text,
                libraries,
                template.backend,
            )
            changes.append((template.slug, revision.number, revision.valid, not parsed.errors))
            revision.parsed, revision.valid = parsed.to_json(), not parsed.errors
            revision.validated_at = utcnow()
    _commit()
    log.info("%s re-validated %d revisions", author, len(changes))
    return changes
