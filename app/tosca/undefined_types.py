"""What the portal says about a type that none of a template's imported files defines.

The orchestrator fetches the very URL each import names and refuses a template whose types
the fetched files do not define. When every import resolved to the library registered for
its URL (see ``typelibs.LibrarySet.resolve``), such a type is an error here too; the words say
what is most likely behind it: a misspelling, a type that another registered library holds
(another branch, tag or fork), or a library that is an older copy of the branch it stands for.

tosca-parser says more than that one thing about such a node (fields "unknown" for want of a
type, internal failures without a name): only the precise finding is kept.
"""

from __future__ import annotations

import difflib
import re

from app.tosca.judge import FIRST, Judge
from app.tosca.type_imports import SECTIONS, ImportGraph, parsed_file
from app.tosca.typelibs import LibrarySet, Resolved, TypeLibrary, is_branch
from app.tosca.wording import N_, said
from app.tosca.yamlsafe import Problem, TemplateError

# tosca-parser's words for a type no imported file defines (InvalidTypeError).
_UNDEFINED_TYPE = re.compile(r'Type "([^"]+)" is not a valid type')
_QUOTED = re.compile(r'"[^"]+"')
# tosca-parser's sentence on an input of a non-primitive type (it names Python's ``type``).
_NO_TYPE_NAMED = re.compile(r"Invalid type \"<class '\w+'>\"")


def input_types(findings: list[Problem], tpl: dict, lines: dict, graph: ImportGraph) -> list:
    """``findings`` with tosca-parser's sentence on inputs of a data type replaced by the
    portal's own: tosca-parser refuses every input whose type is not a primitive one, in words
    that name no type (``Invalid type "<class 'type'>"``), while the orchestrator accepts a data
    type that the imports or the TOSCA profile define. An input of a type that neither defines
    gets the finding of an undefined type, on its line."""
    from toscaparser.elements.constraints import Schema
    from toscaparser.elements.entity_type import EntityType

    kept = [problem for problem in findings if not _NO_TYPE_NAMED.search(problem.message)]
    known = {*Schema.PROPERTY_TYPES, *EntityType.TOSCA_DEF, *_defined(graph)}
    topology = tpl.get("topology_template") if isinstance(tpl, dict) else None
    inputs = topology.get("inputs") if isinstance(topology, dict) else None
    for name, definition in (inputs or {}).items() if isinstance(inputs, dict) else ():
        kind = definition.get("type") if isinstance(definition, dict) else None
        if isinstance(kind, str) and kind not in known:
            kept.append(
                Problem.of(
                    N_("Type check: %(finding)s"),
                    lines.get(("topology_template", "inputs", name, "type")),
                    finding=f'Type "{kind}" is not a valid type.',
                )
            )
    return kept


def _defined(graph: ImportGraph) -> set[str]:
    """Every type the imported files define."""
    return {
        str(type_name)
        for document in graph.documents.values()
        for section in SECTIONS
        for type_name in (document.get(section) or {})
        if isinstance(document.get(section), dict)
    }


def _library_types(library: TypeLibrary) -> set[str]:
    """Every type a library's files define (unreadable files left out)."""
    names: set[str] = set()
    for path in library.files:
        try:
            document = parsed_file(Resolved("", library, path))
        except TemplateError:
            continue
        for section in SECTIONS:
            if isinstance(document.get(section), dict):
                names.update(str(type_name) for type_name in document[section])
    return names


def precise(findings: list[Problem], tpl: dict) -> list[Problem]:
    """``findings`` without what only follows from an undefined node type: the other
    findings about the node templates of that type, and tosca-parser's unnamed failures."""
    undefined = {
        match.group(1)
        for problem in findings
        if not problem.code and (match := _UNDEFINED_TYPE.search(problem.message))
    }
    if not undefined:
        return findings
    topology = tpl.get("topology_template") if isinstance(tpl, dict) else None
    nodes = topology.get("node_templates") if isinstance(topology, dict) else None
    typeless = [
        name
        for name, node in (nodes or {}).items()
        if isinstance(node, dict) and node.get("type") in undefined
    ]
    kept = []
    for problem in findings:
        if problem.code or _UNDEFINED_TYPE.search(problem.message):
            kept.append(problem)
        elif not _QUOTED.search(problem.message):
            continue  # such as "parent_req is None": the parser tripping on the missing type
        elif any(f'template "{name}"' in problem.message for name in typeless):
            continue
        else:
            kept.append(problem)
    return kept


def as_errors(
    findings: list[Problem],
    errors: list[Problem],
    graph: ImportGraph,
    libraries: LibrarySet,
    judge: Judge = FIRST,
) -> list[Problem]:
    """Move undefined types from ``findings`` to ``errors``, in words that say why; return
    the rest.

    Called only when every import resolved to the library registered for the URL it names
    (not one standing in for an unknown ref): then the backend (``judge``), fetching those
    URLs, would refuse the template.
    """
    kept = []
    for problem in findings:
        match = _UNDEFINED_TYPE.search(problem.message)
        if match is None or problem.code:
            kept.append(problem)
            continue
        errors.append(_why(match.group(1), problem.line, graph, libraries, judge))
    return kept


def _why(
    name: str, line: int | None, graph: ImportGraph, libraries: LibrarySet, judge: Judge
) -> Problem:
    imported = ", ".join(graph.libraries)
    if not imported:
        return Problem.of(
            N_(
                'Type "%(type)s" is no TOSCA normative type and the template imports no type '
                "library that could define it, so %(backend)s would refuse it."
            ),
            line,
            type=name,
            backend=judge.name(),
        )
    close = difflib.get_close_matches(name, sorted(_defined(graph)), n=1, cutoff=0.9)
    if close:
        return Problem.of(
            N_(
                'Type "%(type)s" is defined in none of the type libraries this template imports '
                "(%(libraries)s), so %(backend)s would refuse it; check its spelling: they "
                'define "%(close)s".'
            ),
            line,
            type=name,
            libraries=imported,
            backend=judge.name(),
            close=close[0],
        )
    elsewhere = [
        library.name
        for library in libraries.libraries
        if library.name not in graph.libraries and name in _library_types(library)
    ]
    if elsewhere:
        return Problem.of(
            N_(
                'Type "%(type)s" is defined in none of the type libraries this template imports '
                "(%(libraries)s), so %(backend)s, which fetches the URLs the imports name, "
                'would refuse it. Type library "%(other)s" defines it, but answers for other '
                "URLs: import the URL of the files meant."
            ),
            line,
            type=name,
            libraries=imported,
            backend=judge.name(),
            other=elsewhere[0],
        )
    for resolved in graph.resolved:
        ref = resolved.library.literal_ref(resolved.url)
        if is_branch(ref):
            return Problem.of(
                N_(
                    'Type "%(type)s" is defined in none of the type libraries this template '
                    'imports (%(libraries)s). Type library "%(library)s" is a copy of the branch '
                    '"%(ref)s" (%(taken)s), older than the branch %(backend)s fetches: if the '
                    "branch defines the type since, an admin registers a newer copy of it under "
                    "Type libraries; otherwise %(backend)s refuses the template."
                ),
                line,
                type=name,
                libraries=imported,
                backend=judge.name(),
                library=resolved.library.name,
                ref=ref,
                taken=resolved.library.version or said(N_("taken when it was registered")),
            )
    return Problem.of(
        N_(
            'Type "%(type)s" is defined in none of the type libraries this template imports '
            "(%(libraries)s), so %(backend)s would refuse it."
        ),
        line,
        type=name,
        libraries=imported,
        backend=judge.name(),
    )
