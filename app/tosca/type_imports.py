"""Following a template's imports through the type libraries, never through the network.

Each import URL is looked up in the libraries (``typelibs``); the file found may import
further files by absolute or relative URL, which resolve the same way, recursively, with
cycles skipped and depth bounded. Each top-level import becomes one document holding its
file's definitions merged with everything it imports, ready for tosca-parser.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import yaml

from app.bounds import nesting_depth
from app.tosca.judge import FIRST, Judge
from app.tosca.typelibs import (
    LibrarySet,
    Resolved,
    TypeLibrary,
    absolute,
    compile_pattern,
    equivalent,
    nested_imports,
)
from app.tosca.wording import N_, said
from app.tosca.yamlsafe import Limits, Problem, TemplateError

MAX_DEPTH = 8
MAX_FILES = 200
MAX_FILE_BYTES = 4 * 1024 * 1024
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SECTIONS = (
    "artifact_types",
    "data_types",
    "capability_types",
    "interface_types",
    "relationship_types",
    "node_types",
    "group_types",
    "policy_types",
)

_CACHE: dict[str, dict] = {}  # parsed type files by content digest
_CACHE_LOCK = threading.Lock()


@dataclass(frozen=True)
class TemplateImport:
    """One entry of a template's ``imports``: its name, URL (``None`` if unreadable), line."""

    name: str
    url: str | None
    line: int | None


@dataclass
class ImportGraph:
    """What a template's imports resolved to."""

    documents: dict[str, dict] = field(default_factory=dict)  # top-level URL -> merged types
    libraries: list[str] = field(default_factory=list)  # names, in order of first use
    unresolved: list[TemplateImport] = field(default_factory=list)  # the template's own
    nested_unresolved: list[str] = field(default_factory=list)  # inside type files
    problems: list[Problem] = field(default_factory=list)  # unreadable type files
    # The template's own imports that are no absolute URL: the orchestrator cannot fetch them.
    not_urls: list[TemplateImport] = field(default_factory=list)
    resolved: list[Resolved] = field(default_factory=list)  # the template's own, resolved
    # Top-level imports a library answers for only through a ``{ref}`` pattern: it stands in
    # for a branch or commit whose own types may differ.
    stand_ins: list[str] = field(default_factory=list)
    # Stand-ins for a version of a repository whose other versions libraries hold by name:
    # the version the import names is held by none.
    unheld_versions: list[str] = field(default_factory=list)
    # The line of each of the template's own imports, by URL.
    import_lines: dict[str, int | None] = field(default_factory=dict)

    def use(self, library: TypeLibrary) -> None:
        if library.name not in self.libraries:
            self.libraries.append(library.name)


def template_imports(tpl: dict, lines: dict[tuple, int]) -> list[TemplateImport]:
    """The template's imports, with ``repository`` entries turned into URLs."""
    raw = tpl.get("imports") or []
    repositories = tpl.get("repositories") if isinstance(tpl.get("repositories"), dict) else {}
    found = []
    for position, item in enumerate(raw if isinstance(raw, list) else [raw]):
        if isinstance(item, dict) and len(item) == 1 and "file" not in item:
            ((name, entry),) = item.items()
        else:
            name, entry = f"import {position + 1}", item
        found.append(
            TemplateImport(
                str(name),
                _url(entry, repositories),
                lines.get(("imports", position)),
            )
        )
    return found


def _url(entry, repositories: dict) -> str | None:
    if isinstance(entry, str):
        return entry.strip()
    if isinstance(entry, dict) and isinstance(entry.get("file"), str):
        repository = entry.get("repository")
        if repository is None:
            return entry["file"].strip()
        repo = repositories.get(repository)
        base = repo.get("url") if isinstance(repo, dict) else repo
        if isinstance(base, str):
            return base.strip().rstrip("/") + "/" + entry["file"].strip()
    return None


def parsed_file(resolved: Resolved) -> dict:
    """The YAML of a library file, parsed once per content; a fresh copy for each caller.

    Raises ``TemplateError`` when the file is not readable YAML.
    """
    digest = hashlib.sha256(resolved.text.encode("utf-8")).hexdigest()
    with _CACHE_LOCK:
        cached = _CACHE.get(digest)
    if cached is None:
        cached = _load_types(resolved.text)
        with _CACHE_LOCK:
            if len(_CACHE) >= 64:
                _CACHE.clear()
            _CACHE[digest] = cached
    return copy.deepcopy(cached)


def _load_types(text: str) -> dict:
    # Type files come from admins and are read as tosca-parser reads them (a repeated key
    # keeps its last value, as in the published INDIGO types), within a size bound.
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise TemplateError.of(N_("the file is larger than %(limit)d bytes."), limit=MAX_FILE_BYTES)
    try:
        data = yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise TemplateError.of(
            N_("not valid YAML (%(problem)s)"),
            mark.line + 1 if mark else None,
            problem=str(getattr(error, "problem", error)),
        ) from None
    if not isinstance(data, dict):
        raise TemplateError.of(N_("the file is not a YAML mapping."))
    # libyaml allows 1000 levels; copying or walking that deep would exhaust Python's stack.
    if nesting_depth(data, Limits.max_depth) > Limits.max_depth:
        raise TemplateError.of(
            N_("its lists and mappings nest more than %(limit)d levels deep."),
            limit=Limits.max_depth,
        )
    return data


def resolve_imports(
    tpl: dict, lines: dict[tuple, int], libraries: LibrarySet, prefer: TypeLibrary | None
) -> ImportGraph:
    """Resolve every import of ``tpl``, and of the type files it reaches."""
    graph = ImportGraph()
    budget = [MAX_FILES]
    for item in template_imports(tpl, lines):
        if item.url and urlsplit(item.url).scheme not in ("http", "https"):
            graph.not_urls.append(item)
            continue
        resolved = libraries.resolve(item.url, prefer) if item.url else None
        if resolved is None:
            graph.unresolved.append(item)
            continue
        graph.resolved.append(resolved)
        graph.import_lines.setdefault(item.url, item.line)
        if resolved.library.specificity(item.url) < 2:
            graph.stand_ins.append(item.url)
            if _versions_told_apart(resolved, libraries):
                graph.unheld_versions.append(item.url)
        document = _merged(resolved, libraries, prefer, graph, set(), 0, budget)
        if document is not None:
            graph.documents[item.url] = document
    return graph


def _versions_told_apart(resolved: Resolved, libraries: LibrarySet) -> bool:
    """Whether some library answers for a named version (a literal ref) of the repository
    whose ``{ref}`` pattern answered for ``resolved``: then the sites tell its versions
    apart, and the one the import names is held by none. A library registered for any ref of
    a repository (a site's own) stands for all of them."""
    url = equivalent(resolved.url)
    answering = [
        compile_pattern(p)
        for p in resolved.library.patterns
        if "{ref}" in p and compile_pattern(p).fullmatch(url)
    ]
    return any(
        regex.fullmatch(pattern.replace("{path}", resolved.path))
        for library in libraries.libraries
        for pattern in library.patterns
        if "{ref}" not in pattern
        for regex in answering
    )


def _merged(resolved, libraries, prefer, graph, seen: set, depth: int, budget: list):
    key = (resolved.library.name, resolved.path)
    if key in seen or depth > MAX_DEPTH or budget[0] <= 0:
        return {}  # a cycle, or too deep: what is already merged stands
    budget[0] -= 1
    graph.use(resolved.library)
    try:
        document = parsed_file(resolved)
    except TemplateError as error:
        graph.problems.append(
            Problem.of(
                N_('Type file "%(path)s" of library "%(library)s" can\'t be read: %(error)s'),
                path=resolved.path,
                library=resolved.library.name,
                error=said(N_("line %(line)d: %(problem)s"), line=error.line, problem=error.said())
                if error.line
                else error.said(),
            )
        )
        return None
    merged: dict = {}
    for reference in nested_imports(document):
        url = absolute(reference, resolved.url)
        inner = libraries.resolve(url, prefer)
        if inner is None:
            where = f"{resolved.library.name}/{resolved.path}"
            if f"{url} (imported by {where})" not in graph.nested_unresolved:
                graph.nested_unresolved.append(f"{url} (imported by {where})")
            continue
        found = _merged(inner, libraries, prefer, graph, seen | {key}, depth + 1, budget)
        for section in SECTIONS:
            if isinstance((found or {}).get(section), dict):
                merged.setdefault(section, {}).update(found[section])
    for section in SECTIONS:
        if isinstance(document.get(section), dict):
            merged.setdefault(section, {}).update(document[section])
    document.pop("imports", None)
    document.update(merged)
    return document


def not_url_problems(graph: ImportGraph, judge: Judge = FIRST) -> list[Problem]:
    """An error for each of the template's imports that is no http(s) URL: the backend
    (``judge``) fetches each import itself and refuses the template when it cannot."""
    return [
        Problem.of(
            N_(
                'Import "%(name)s" (%(url)s) is not an absolute URL such as https://…/'
                "custom_types.yaml: %(backend)s fetches each import by its URL, so it would "
                "refuse the template. Give the whole URL of the file."
            ),
            item.line,
            name=item.name,
            url=item.url,
            backend=judge.name(),
        )
        for item in graph.not_urls
    ]


def unresolved_problems(graph: ImportGraph) -> list[Problem]:
    """Warnings for the imports no library holds: their types were not checked."""
    found = [
        Problem.of(
            N_(
                'Import "%(name)s" (%(url)s) is in no type library, so its types were not '
                "checked; the form and cost come from the template itself. An admin can "
                "register the library under Type libraries. It was not downloaded."
            ),
            item.line,
            name=item.name,
            url=item.url or said(N_("unreadable")),
        )
        for item in graph.unresolved
    ]
    if graph.nested_unresolved:
        found.append(
            Problem.of(
                N_(
                    "Type files import what no type library holds, so those types were not "
                    "checked: %(imports)s."
                ),
                imports="; ".join(graph.nested_unresolved),
            )
        )
    return found


def stand_in_problems(graph: ImportGraph, judge: Judge = FIRST) -> list[Problem]:
    """A warning for each of the template's imports whose version no library holds, while
    others are held by name, naming the library that stood in for it: its types were checked
    against that library's, which may differ from those the backend (``judge``) fetches."""
    found = []
    for resolved in graph.resolved:
        if resolved.url not in graph.unheld_versions:
            continue
        found.append(
            Problem.of(
                N_(
                    "Import %(url)s names a version that no type library holds: type library "
                    '"%(library)s" stood in for it, so the types were checked against its files, '
                    "which may differ from those %(backend)s fetches. An admin can register that "
                    "version under Type libraries."
                ),
                graph.import_lines.get(resolved.url),
                url=resolved.url,
                library=resolved.library.name,
                backend=judge.name(),
            )
        )
    return found


def unused_pin(pinned: TypeLibrary, graph: ImportGraph, judge: Judge = FIRST) -> Problem:
    """The warning for a sidecar's types_version that answers for none of the imports."""
    return Problem.of(
        N_(
            'types_version "%(pinned)s" answers for none of the template\'s imports, so it was '
            "not used: %(backend)s fetches the URLs the imports name, and they were checked "
            "against the libraries registered for them (%(libraries)s)."
        ),
        None,
        "sidecar",
        pinned=pinned.name,
        libraries=", ".join(graph.libraries),
        backend=judge.name(),
    )
