"""Which backend serves a template: its own choice, else the site's ``DEFAULT_BACKEND``.

A template is routed to a backend by an admin's choice on its page (``revisions.set_backend``)
or by its sidecar's ``backend`` key when a revision brings it in or changes it; the choice is
stored on the template (``CatalogueTemplate.backend``, None for the site's default). The latest
word wins: a sidecar line left as it was does not undo an admin's later choice, while a
sidecar that adds, changes or removes the line routes the template again.

Every routing, and every new revision of a routed template, is put to the backend
(``registry.kind(name).template_problem``) with the template's node types and their
ancestors; a refusal is a ``CatalogueError`` naming why, and nothing is saved.
"""

from __future__ import annotations

import io
import json

from flask import current_app
from flask_babel import gettext as _
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from app.backends import registry
from app.catalogue.errors import CatalogueError
from app.errors import ConfigurationError
from app.tosca.judge import Judge
from app.tosca.type_imports import resolve_imports
from app.tosca.typelibs import LibrarySet
from app.tosca.yamlsafe import Limits, TemplateError

# A chain of ``derived_from`` longer than this is a loop or a mistake, not a type hierarchy.
MAX_ANCESTORS = 50


def serving_backend(template) -> str:
    """The name of the backend that deploys ``template`` (a ``CatalogueTemplate`` or a
    catalogue ``Entry``): its own choice, else the site's ``DEFAULT_BACKEND``."""
    return getattr(template, "backend", None) or current_app.config["DEFAULT_BACKEND"]


def judge_for(backend: str | None) -> Judge:
    """How templates are judged for ``backend`` (None: the site's default): in its own words,
    and strictly for one that refuses a template on any of tosca-parser's findings."""
    words = registry.words(backend or current_app.config["DEFAULT_BACKEND"])
    return Judge(named=words.named or Judge.named, refuses_findings=words.refuses_findings)


def check_default_backend(config) -> None:
    """Raises ConfigurationError when ``DEFAULT_BACKEND`` names no backend the portal knows."""
    name = config.get("DEFAULT_BACKEND")
    if not registry.known(name):
        raise ConfigurationError(
            f"DEFAULT_BACKEND is {name!r}, which is no backend the portal knows: set "
            f"PORTAL_DEFAULT_BACKEND to one of {', '.join(registry.NAMES)}."
        )


def known_names() -> str:
    """The known backends as an admin reads them: ``paas (PaaS Orchestrator), im (...)``."""
    return ", ".join(f"{name} ({registry.label(name)})" for name in registry.NAMES)


def check_name(name: str, field: str) -> None:
    """Raises CatalogueError (on ``field``) when ``name`` is no backend the portal knows."""
    if not registry.known(name):
        raise CatalogueError(
            _(
                "“%(name)s” is no backend this portal knows: use one of %(known)s.",
                name=name,
                known=known_names(),
            ),
            field=field,
        )


def node_types(tosca_text: str, libraries: LibrarySet, pinned: str | None = None) -> tuple:
    """Every node template's type followed by the types it derives from, each once, as the
    template's own ``node_types`` and the type library files its imports resolve to define
    them. A type no file defines stands alone; an unreadable template has none."""
    try:
        tpl, lines = Limits.from_config(current_app.config).load(tosca_text)
    except TemplateError:
        return ()
    from toscaparser.elements.entity_type import EntityType  # the normative types

    prefer = libraries.get(pinned) if pinned else None
    graph = resolve_imports(tpl, lines, libraries, prefer)
    definitions: dict = dict(EntityType.TOSCA_DEF)
    for document in graph.documents.values():
        if isinstance(document.get("node_types"), dict):
            definitions.update(document["node_types"])
    if isinstance(tpl.get("node_types"), dict):
        definitions.update(tpl["node_types"])
    topology = tpl.get("topology_template")
    nodes = topology.get("node_templates") if isinstance(topology, dict) else None
    found: dict[str, None] = {}
    for node in (nodes or {}).values() if isinstance(nodes, dict) else ():
        name = node.get("type") if isinstance(node, dict) else None
        for _step in range(MAX_ANCESTORS):
            if not isinstance(name, str) or name in found:
                break
            found[name] = None
            definition = definitions.get(name)
            name = definition.get("derived_from") if isinstance(definition, dict) else None
    return tuple(found)


def refusal(backend: str, tosca_text: str, libraries: LibrarySet, pinned: str | None):
    """Why ``backend`` cannot deploy this template text, as a sentence; None when it can."""
    return registry.kind(backend).template_problem(node_types(tosca_text, libraries, pinned))


def said_backend(parsed_json: str | None) -> str | None:
    """The ``backend`` a stored revision's sidecar named (read loosely: older results lack it)."""
    try:
        return json.loads(parsed_json).get("backend") or None
    except (TypeError, ValueError, AttributeError):
        return None


def route(template, parsed, previous: str | None, tosca_text: str, libraries: LibrarySet):
    """The backend ``template`` (None for a new one) is routed to once the revision ``parsed``
    (of ``tosca_text``) is saved; ``previous`` is what the latest revision's sidecar said.

    Raises CatalogueError when the sidecar names an unknown backend, or the backend that is
    to serve the template cannot deploy it.
    """
    own = template.backend if template is not None else None
    if parsed.backend is not None:
        check_name(parsed.backend, "sidecar_text")
        if parsed.backend != previous:
            own = parsed.backend
    elif previous is not None:
        own = None  # the sidecar's line was removed: back to the site's default
    serving = own or current_app.config["DEFAULT_BACKEND"]
    problem = refusal(serving, tosca_text, libraries, parsed.types_version)
    if problem:
        raise CatalogueError(problem, field="tosca_text")
    return own


def sidecar_with_backend(sidecar_text: str, backend: str | None) -> str:
    """The sidecar saying ``backend`` (the key left out for the site's default), for an
    export; the text is returned as it is when it says so already or can't be read."""
    try:
        data = Limits.from_config(current_app.config).load(sidecar_text)[0]
    except TemplateError:
        data = {} if not sidecar_text.strip() else None
    if data is None or (data.get("backend") or None) == backend:
        return sidecar_text
    yaml = YAML()  # round-trip: comments, order and quoting of the rest survive
    yaml.preserve_quotes = True
    yaml.width = 4096
    try:
        document = yaml.load(sidecar_text) if sidecar_text.strip() else CommentedMap()
    except YAMLError:
        return sidecar_text
    if not isinstance(document, CommentedMap):
        return sidecar_text
    if backend is None:
        document.pop("backend", None)
    else:
        document["backend"] = backend
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()
