"""A revision parsed and validated as the backend that serves its template judges it.

Which backend serves a template may depend on the revision itself (its sidecar's ``backend``),
so ``parse_and_route`` parses once, routes, and parses again only when the template goes to a
backend that judges otherwise (``routing.judge_for``).
"""

from pathlib import Path

from flask import current_app
from flask_babel import force_locale

from app.catalogue import routing
from app.catalogue.libraries import library_set
from app.tosca.parsed import Limits, ParsedTemplate, parse_template
from app.tosca.typelibs import LibrarySet


def parse(
    slug: str,
    tosca_text: str,
    sidecar_text: str = "",
    libraries: LibrarySet | None = None,
    backend: str | None = None,
) -> ParsedTemplate:
    """Parse and validate a template with the configured limits and the type libraries, as
    ``backend`` (None: the site's default) judges it (``routing.judge_for``)."""
    config = current_app.config
    icons_dir = Path(config["CATALOGUE_DIR"]) / "icons"
    # Stored in English whoever saves it: each admin reads the judgments in their own language.
    with force_locale("en"):
        return parse_template(
            slug,
            tosca_text,
            sidecar_text or None,
            libraries=library_set() if libraries is None else libraries,
            limits=Limits.from_config(config),
            icons={path.name for path in icons_dir.glob("*.svg")},
            judge=routing.judge_for(backend),
        )


def parse_and_route(template, slug, tosca_text, sidecar_text, previous, libraries):
    """(The backend ``template`` is routed to, the revision parsed as the backend serving it
    judges it): ``routing.route`` on a first parse, and a second when the revision routes the
    template to a backend that judges otherwise. Raises CatalogueError as ``route`` does."""
    guess = template.backend if template is not None else None
    parsed = parse(slug, tosca_text, sidecar_text, libraries, guess)
    backend = routing.route(template, parsed, previous, tosca_text, libraries)
    if routing.judge_for(backend) != routing.judge_for(guess):
        parsed = parse(slug, tosca_text, sidecar_text, libraries, backend)
    return backend, parsed
