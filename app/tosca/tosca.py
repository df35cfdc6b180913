"""Validating TOSCA templates: the portal's own checks, then tosca-parser against type libraries.

The orchestrator is the authority on what deploys, so only ``checks`` (what it would certainly
refuse) and problems the portal itself meets (unreadable files, forms it can't build) are
errors. tosca-parser runs against the local copies the type libraries hold (``typelibs``,
``type_imports``); what it finds is a warning with its line, named after its row of
``leniency.LENIENCIES`` when it is a known leniency. A template whose imports no library holds
is still publishable, with a warning that its types were not checked; when every import is
held for the ref it names, a type none of them defines is an error (a misspelling the
orchestrator refuses).

tosca-parser never reaches the network: while it runs its loader is replaced by one that serves
the resolved library files and refuses anything else. Any exception it raises is caught, and
the output or node template that provokes it is found by running it again without each.
"""

from __future__ import annotations

import copy
import logging
import re
import threading
from dataclasses import dataclass, field

from app.tosca import leniency
from app.tosca.checks import structural_problems
from app.tosca.type_imports import ImportGraph, resolve_imports
from app.tosca.typelibs import LibrarySet
from app.tosca.wording import N_, said
from app.tosca.yamlsafe import Problem

_LOCK = threading.Lock()  # tosca-parser collects errors in class attributes: one run at a time
_QUIET = threading.Event()
MAX_LOCATING_RUNS = 40


@dataclass
class Validation:
    """The outcome of validating one template: libraries used, errors and warnings."""

    libraries: list[str] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)

    @property
    def version(self) -> str | None:
        return self.libraries[0] if self.libraries else None


def find_line(message: str, lines: dict[tuple, int], text: str | None = None) -> int | None:
    """Guess the template line a tosca-parser message is about, from the names it quotes."""
    tokens = set(re.findall(r'"([^"]+)"', message))
    best: tuple | None = None
    for path, line in lines.items():
        if str(path[-1]) not in tokens:
            continue
        score = len(tokens & {str(part) for part in path})
        rank = (-score, len(path), line)
        if best is None or rank < best[0]:
            best = (rank, line)
    if best:
        return best[1]
    if text:
        # The message quotes a value rather than a key: its first whole-word occurrence.
        for token in sorted(tokens, key=len, reverse=True):
            if len(token) < 3 or token.isdigit():
                continue
            word = re.compile(rf"(?<![\w.]){re.escape(token)}(?![\w.])", re.IGNORECASE)
            for number, content in enumerate(text.splitlines(), start=1):
                if word.search(content.split("#", 1)[0]):
                    return number
    return None


def _quiet_toscaparser() -> None:
    # tosca-parser logs every problem it also raises; the portal reports them itself.
    if not _QUIET.is_set():
        for name in ("tosca", "toscaparser"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        _QUIET.set()


@dataclass
class _Run:
    messages: list[str]
    crash: str | None = None


def _run_toscaparser(tpl: dict, documents: dict[str, dict]) -> _Run:
    """Run tosca-parser on ``tpl``, serving imports from ``documents`` (URL -> types)."""
    import toscaparser.imports
    from toscaparser.common.exception import ExceptionCollector, URLException, ValidationError
    from toscaparser.tosca_template import ToscaTemplate

    def loader(path, a_file=True):
        if not a_file and path in documents:
            return copy.deepcopy(documents[path])
        ExceptionCollector.appendException(
            URLException(what=f'Refused to load "{path}": only type library files are used.')
        )
        return None

    _quiet_toscaparser()
    with _LOCK:
        original = toscaparser.imports.YAML_LOADER
        toscaparser.imports.YAML_LOADER = loader
        try:
            ToscaTemplate(yaml_dict_tpl=copy.deepcopy(tpl), a_file=False)
            return _Run([])
        except ValidationError:
            return _Run([str(error) for error in ExceptionCollector.getExceptions()])
        except Exception as error:  # noqa: BLE001 - a parser crash is a finding, not a 500
            collected = [str(e) for e in ExceptionCollector.getExceptions()]
            return _Run(collected, f"{type(error).__name__}: {error}")
        finally:
            ExceptionCollector.stop()
            ExceptionCollector.clear()
            toscaparser.imports.YAML_LOADER = original


def _without(tpl: dict, section: str, keep=None, drop=None) -> dict:
    reduced = copy.deepcopy(tpl)
    topology = reduced["topology_template"]
    items = topology.get(section) or {}
    topology[section] = {
        k: v for k, v in items.items() if (keep is None or k == keep) and k != drop
    }
    if not topology[section]:
        topology.pop(section)
    return reduced


def _locate_crash(tpl: dict, documents: dict, lines: dict) -> tuple[dict, int | None, dict]:
    """The construct tosca-parser crashes on, its line, and the template without it."""
    topology = tpl.get("topology_template") or {}
    runs = 0
    for name in list(topology.get("outputs") or {}):
        if runs >= MAX_LOCATING_RUNS:
            break
        runs += 1
        if _run_toscaparser(_without(tpl, "outputs", keep=name), documents).crash:
            return (
                f'output "{name}"',
                lines.get(("topology_template", "outputs", name)),
                _without(tpl, "outputs", drop=name),
            )
    no_outputs = _without(tpl, "outputs", keep="")
    for name in list(topology.get("node_templates") or {}):
        if runs >= MAX_LOCATING_RUNS:
            break
        runs += 1
        reduced = _without(no_outputs, "node_templates", drop=name)
        if not _run_toscaparser(reduced, documents).crash:
            where = lines.get(("topology_template", "node_templates", name))
            return said(N_('node template "%(name)s"'), name=name), where, reduced
    return said(N_("the template")), None, {}


def _findings(tpl: dict, graph: ImportGraph, lines: dict, text: str | None) -> list[Problem]:
    """tosca-parser's findings as warnings (named when a leniency explains them)."""
    run = _run_toscaparser(tpl, graph.documents)
    found = []
    if run.crash:
        construct, line, reduced = _locate_crash(tpl, graph.documents, lines)
        found.append(
            Problem.of(
                N_(
                    "tosca-parser failed on %(construct)s (%(crash)s); the orchestrator decides "
                    "whether it deploys. The rest of the template was checked without it."
                ),
                line,
                construct=construct,
                crash=str(run.crash),
            )
        )
        run = _run_toscaparser(reduced, graph.documents) if reduced else _Run([])
    found_calls = leniency.calls(tpl, lines)
    for message in dict.fromkeys(run.messages):
        if len(message) > 1 and message[0] == message[-1] == "'":
            message = message[1:-1]  # str() of a KeyError quotes its message
        line = find_line(message, lines, text)
        code = leniency.explain(message)
        if code == "deploy-time-property":
            line = leniency.deploy_time_line(message, found_calls) or line
        if code:
            found.append(leniency.problem(code, message, line))
        else:
            found.append(Problem.of(N_("Type check: %(finding)s"), line, finding=message))
    return found


def _type_findings(problems: list[Problem]) -> bool:
    return any(not problem.code for problem in problems)


def validate_template(
    tpl: dict,
    lines: dict[tuple, int],
    *,
    libraries: LibrarySet,
    pinned: str | None = None,
    text: str | None = None,
) -> Validation:
    """Validate a loaded template; never touches the network and never raises for a template.

    ``lines`` comes from ``yamlsafe.load_yaml_lines``; ``text`` helps find lines for messages
    that quote values. ``pinned`` (the sidecar's ``types_version``) names a library to prefer.
    When the library the imports name leaves type findings and another version of the same
    files has none, that one is used with a warning (for a pinned library, a hint is added).
    """
    result = Validation(errors=structural_problems(tpl, lines))
    ready, lenient = leniency.prepare(tpl, lines)
    result.warnings.extend(lenient)
    prefer = libraries.get(pinned) if pinned else None
    if pinned and prefer is None:
        result.errors.append(
            Problem.of(
                N_('types_version "%(pinned)s" is not a type library: use one of %(names)s.'),
                None,
                "sidecar",
                pinned=pinned,
                names=", ".join(libraries.names()) or said(N_("(none registered)")),
            )
        )
    graph = resolve_imports(ready, lines, libraries, prefer)
    result.libraries = graph.libraries
    result.warnings.extend(graph.problems)
    result.unresolved = [f"{item.url or item.name}" for item in graph.unresolved]
    result.unresolved += graph.nested_unresolved
    for item in graph.unresolved:
        result.warnings.append(
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
        )
    if graph.nested_unresolved:
        result.warnings.append(
            Problem.of(
                N_(
                    "Type files import what no type library holds, so those types were not "
                    "checked: %(imports)s."
                ),
                imports="; ".join(graph.nested_unresolved),
            )
        )
    if graph.unresolved or result.errors:
        return result  # type findings would only repeat that types are missing
    findings = _findings(ready, graph, lines, text)
    if _type_findings(findings) and len(graph.libraries) == 1:
        chosen = libraries.get(graph.libraries[0])
        for other in libraries.alternatives(graph.paths, exclude=chosen):
            alt_graph = resolve_imports(ready, lines, libraries, other)
            alt = _findings(ready, alt_graph, lines, text)
            if _type_findings(alt):
                continue
            if pinned:
                findings.append(
                    Problem.of(
                        N_(
                            'It validates against type library "%(other)s" instead; pin that one '
                            "in the sidecar if it is the intended one."
                        ),
                        None,
                        "sidecar",
                        other=other.name,
                    )
                )
            else:
                findings = [
                    Problem.of(
                        N_(
                            'Validates only against type library "%(other)s", not "%(chosen)s" '
                            'which its imports name; checked against "%(other)s". Pin '
                            "types_version: %(other)s in the sidecar to make this explicit."
                        ),
                        other=other.name,
                        chosen=chosen.name,
                    ),
                    *alt,
                ]
                result.libraries = alt_graph.libraries
            break
    if not graph.nested_unresolved and not graph.stand_ins:
        findings = _undefined_types_as_errors(findings, result)
    result.warnings.extend(findings)
    return result


# tosca-parser's words for a type no imported file defines (InvalidTypeError).
_UNDEFINED_TYPE = re.compile(r'Type "([^"]+)" is not a valid type')


def _undefined_types_as_errors(findings: list[Problem], result: Validation) -> list[Problem]:
    """Move undefined types from ``findings`` to ``result.errors``; return the rest.

    Called only when every import resolved to a library the portal holds for the very ref it
    names: then a type none of them defines is certainly undefined (a misspelling), and the
    orchestrator refuses the template. With an unresolved import, or one a library only
    stands in for (another branch or commit), the type may live there: it stays a warning.
    """
    kept = []
    for problem in findings:
        match = _UNDEFINED_TYPE.search(problem.message)
        if match is None or problem.code:
            kept.append(problem)
            continue
        result.errors.append(
            Problem.of(
                N_(
                    'Type "%(type)s" is defined in none of the type libraries this template '
                    "imports (%(libraries)s), so the orchestrator would refuse it; check its "
                    "spelling."
                ),
                problem.line,
                type=match.group(1),
                libraries=", ".join(result.libraries),
            )
        )
    return kept
