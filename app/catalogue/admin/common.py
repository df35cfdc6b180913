"""What the catalogue admin pages share: template states, the current author, errors shown
beside their field, and a revision's problems as numbered listings."""

import json
from dataclasses import dataclass, field

from flask_babel import lazy_gettext as _l
from flask_login import current_user

from app.catalogue import operations
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.operations import CatalogueError
from app.tosca.parsed import ParsedTemplate

#: Filter key -> label, in the order the list page offers them.
STATES = {
    "published": _l("Published"),
    "changes": _l("Unpublished changes"),
    "draft": _l("Not published yet"),
    "hidden": _l("Hidden"),
    "broken": _l("Broken"),
    "warnings": _l("With warnings"),
}
SOURCES = (("template", _l("Template")), ("sidecar", _l("Portal metadata")))


def template_states(hidden: bool, latest_valid, latest_number, published_number) -> tuple:
    """The states of a template: its main state first, then "changes" when it has them."""
    if published_number is None and latest_valid is False:
        states = ["broken"]
    elif hidden:
        states = ["hidden"]
    elif published_number is not None:
        states = ["published"]
    else:
        states = ["draft"]
    if published_number is not None and (latest_number or 0) > published_number:
        states.append("changes")
    return tuple(states)


def template_states_of(template: CatalogueTemplate) -> tuple:
    latest = operations.latest_revision(template)
    published = template.published_revision
    return template_states(
        template.hidden,
        latest.valid if latest else None,
        latest.number if latest else None,
        published.number if published else None,
    )


def parsed_summary(parsed_json: str | None, slug: str) -> tuple[str, int]:
    """The display name and the number of warnings of a stored parse result."""
    # Read loosely: the pages need only these two, even from an older format.
    try:
        data = json.loads(parsed_json)
        return str(data.get("name") or slug), len(data.get("warnings") or [])
    except (TypeError, ValueError, AttributeError):
        return slug, 0


def shown_name(template: CatalogueTemplate) -> str:
    """The name a template's pages are titled by: its latest revision's, else its slug."""
    latest = operations.latest_revision(template)
    return parsed_summary(latest.parsed if latest else None, template.slug)[0]


def author() -> str:
    return current_user.username


def attach_error(form, error: CatalogueError) -> None:
    """Show an operation's error beside its field, or above the form."""
    target = getattr(form, error.field, None) if error.field else None
    if target is not None:
        target.errors = [*target.errors, error.message]
    else:
        form.form_errors.append(error.message)


@dataclass
class Listing:
    """A file of a revision, line by line, with the problems found on each line."""

    source: str
    title: str
    lines: list[tuple[int, str, list[str]]] = field(default_factory=list)


@dataclass
class ProblemsView:
    """A revision's problems, and its files as numbered listings to link them to."""

    revision: TemplateRevision
    parsed: ParsedTemplate
    listings: list[Listing]


def parsed_of(revision: TemplateRevision) -> ParsedTemplate:
    """The revision's stored parse result; parsed again if it was stored in an older format."""
    try:
        return ParsedTemplate.from_json(revision.parsed)
    except ValueError:
        template = revision.template
        return operations.parse(
            template.slug, revision.tosca_text, revision.sidecar_text, backend=template.backend
        )


def problems_view(revision: TemplateRevision) -> ProblemsView:
    """The revision's stored problems beside the lines of its files."""
    parsed = parsed_of(revision)
    texts = {"template": revision.tosca_text, "sidecar": revision.sidecar_text or ""}
    listings = []
    for source, title in SOURCES:
        lines = texts[source].splitlines()
        found: dict[int, list[str]] = {}
        for problem in [*parsed.errors, *parsed.warnings]:
            if problem.source == source and problem.line:
                found.setdefault(problem.line, []).append(problem.shown)
        # A problem at the end of the file (say, an unclosed bracket) points one line past it.
        lines += [""] * (max(found, default=0) - len(lines))
        listings.append(
            Listing(source, title, [(n, text, found.get(n, [])) for n, text in enumerate(lines, 1)])
        )
    return ProblemsView(revision, parsed, listings)
