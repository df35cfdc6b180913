"""Validating TOSCA templates: the portal's own checks, then tosca-parser against type libraries.

The backend a template runs on is the authority on what deploys; it is handed in as a
``judge.Judge``, whose words every sentence about it uses. Only ``checks`` (what any backend
would certainly refuse) and problems the portal itself meets (unreadable files, forms it can't
build) are errors. tosca-parser runs against the local copies the type libraries hold
(``typelibs``, ``type_imports``); what it finds is a warning with its line, named after its row
of ``leniency.LENIENCIES`` when it is a known leniency, unless the backend runs tosca-parser
itself and refuses on any finding (the Infrastructure Manager): then it is an error in that
backend's words. A template whose imports no library holds is still publishable, with a
warning that its types were not checked; an import that is no absolute URL is an error, since
the backend fetches each import itself. Each import is
checked against the library registered for the URL it names, never another holding files of
the same names; when every import is held for the ref it names, a type none of them defines
is an error (``undefined_types``).

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
from app.tosca import undefined_types as undefined
from app.tosca.checks import structural_problems
from app.tosca.judge import FIRST, Judge
from app.tosca.type_imports import (
    ImportGraph,
    not_url_problems,
    resolve_imports,
    stand_in_problems,
    unresolved_problems,
    unused_pin,
)
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


_CRASHED = N_(
    "tosca-parser failed on %(construct)s (%(crash)s); %(backend)s decides whether it "
    "deploys. The rest of the template was checked without it."
)


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


def _findings(
    tpl: dict, graph: ImportGraph, lines: dict, text: str | None, judge: Judge
) -> list[Problem]:
    """tosca-parser's findings as warnings (named when a leniency explains them)."""
    run = _run_toscaparser(tpl, graph.documents)
    found = []
    if run.crash:
        construct, line, reduced = _locate_crash(tpl, graph.documents, lines)
        found.append(
            Problem.of(
                _CRASHED,
                line,
                construct=construct,
                crash=str(run.crash),
                backend=judge.name(),
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


def validate_template(
    tpl: dict,
    lines: dict[tuple, int],
    *,
    libraries: LibrarySet,
    pinned: str | None = None,
    text: str | None = None,
    judge: Judge = FIRST,
) -> Validation:
    """Validate a loaded template; never touches the network and never raises for a template.

    ``lines`` comes from ``yamlsafe.load_yaml_lines``; ``text`` helps find lines for messages
    that quote values. ``pinned`` (the sidecar's ``types_version``) names the library to prefer
    among those answering for an import's URL; it never replaces the library registered for
    the very URL an import names, since that URL is what the backend fetches. ``judge`` is the
    backend the template runs on: its words, and whether tosca-parser's findings are fatal.
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
    result.errors.extend(not_url_problems(graph, judge))
    result.unresolved = [f"{item.url or item.name}" for item in graph.not_urls + graph.unresolved]
    result.unresolved += graph.nested_unresolved
    result.warnings.extend(unresolved_problems(graph))
    result.warnings.extend(stand_in_problems(graph, judge))
    if prefer is not None and graph.resolved and prefer.name not in graph.libraries:
        result.warnings.append(unused_pin(prefer, graph, judge))
    if graph.unresolved or result.errors:
        return result  # type findings would only repeat that types are missing
    findings = undefined.input_types(
        _findings(ready, graph, lines, text, judge), ready, lines, graph
    )
    findings = undefined.precise(findings, ready)
    certain = not graph.nested_unresolved and not graph.stand_ins
    if certain:
        findings = undefined.as_errors(findings, result.errors, graph, libraries, judge)
    if certain and judge.refuses_findings:
        findings = _refused(findings, result, judge)
    result.warnings.extend(findings)
    return result


# Leniencies of an input's default, which the value sent at launch replaces: the backend's
# parser never reads them.
_REPAIRED_BEFORE_SENDING = {"number-for-string", "integer-for-float"}


def _refused(findings: list[Problem], result: Validation, judge: Judge) -> list[Problem]:
    """For a backend that runs tosca-parser itself and refuses a template on any finding:
    tosca-parser's ``findings``, and the leniencies that only hid constructs from it (a list
    index, mapping constraints), become errors in that backend's words. Returns the findings
    kept as warnings (none)."""
    hidden = [
        problem
        for problem in result.warnings
        if problem.code and problem.code not in _REPAIRED_BEFORE_SENDING
    ]
    for problem in [*hidden, *findings]:
        if problem in hidden:
            result.warnings.remove(problem)
        result.errors.append(
            Problem.of(judge.refuses_findings, problem.line, finding=_as_found(problem))
        )
    return []


def _as_found(problem: Problem) -> str | dict:
    """What tosca-parser found, without the words that say the orchestrator decides: a
    leniency's own finding, or the parser's failure alone."""
    if problem.code:
        return problem.params.get("detail") or problem.said()
    if problem.msgid == _CRASHED:
        return said(
            N_("tosca-parser failed on %(construct)s (%(crash)s)."),
            construct=problem.params["construct"],
            crash=problem.params["crash"],
        )
    return problem.said()
