"""Where the portal is more lenient than tosca-parser, and why: one table, one place.

The orchestrator is the authority on what deploys. Each construct below is accepted by the
orchestrator (and found in templates that deploy every day) but refused, or crashed on, by
tosca-parser. The portal reports each as a warning named after its row, on the line it
occurs, and hands tosca-parser a copy of the template with the construct normalised so the
rest of the type check still runs.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from app.tosca.wording import N_, said
from app.tosca.yamlsafe import Problem

FUNCTIONS = ("get_input", "get_property", "get_attribute")


@dataclass(frozen=True)
class Leniency:
    """One row of the table: a name, what it is about, and why it is accepted."""

    code: str
    title: str
    why: str


LENIENCIES = {
    row.code: row
    for row in (
        Leniency(
            "list-index",
            N_("A list index in get_property"),
            N_(
                "The orchestrator resolves an index into a list property "
                "(get_property: [node, os_users, 0]); tosca-parser crashes on it."
            ),
        ),
        Leniency(
            "deploy-time-property",
            N_("A property or attribute filled at deploy time"),
            N_(
                "Properties such as a network's proxy_host or an IAM client's client_id get their "
                "value when the orchestrator deploys; tosca-parser looks for it in the template."
            ),
        ),
        Leniency(
            "mapping-constraints",
            N_("Constraints written as a mapping"),
            N_(
                "constraints: {in_range: [1 GB, 100 GB]} is read by the orchestrator like the "
                "list form TOSCA specifies."
            ),
        ),
        Leniency(
            "number-for-string",
            N_("A number or yes/no where text is expected"),
            N_(
                "YAML reads 21600 or true as a number or a boolean; the orchestrator sends it as "
                "the text it was written as."
            ),
        ),
        Leniency(
            "integer-for-float",
            N_("A whole number where a float is expected"),
            N_("A whole number is a valid float for the orchestrator."),
        ),
        Leniency(
            "duplicate-key",
            N_("A key given twice in one mapping"),
            N_(
                "The orchestrator's YAML reader keeps the later one, as the portal does for the "
                "form and the cost; published templates repeat whole input definitions."
            ),
        ),
        Leniency(
            "missing-host",
            N_("A requirement inherited from the type left out"),
            N_(
                "tosca-parser counts requirements (such as host) inherited from the type; the "
                "orchestrator places nodes without them, as many published templates do."
            ),
        ),
    )
}

# tosca-parser messages that one of the rows above explains.
_MESSAGES = (
    (
        re.compile(r'(Property|Attribute) "([^"]+)" was not found in (node template|capability)'),
        "deploy-time-property",
    ),
    (re.compile(r'"-?\d+" is not a float\.'), "integer-for-float"),
    (re.compile(r'"(-?[\d.]+|True|False|true|false)" is not a string\.'), "number-for-string"),
    (
        re.compile(r'Relationship "[^"]+" in template "[^"]+" has a wrong number of occurrences'),
        "missing-host",
    ),
)


def duplicate_key(found: Problem) -> Problem:
    """The named warning for a key the YAML reader found twice (``yamlsafe``)."""
    return problem("duplicate-key", found.said(), found.line)


def problem(code: str, detail: str | dict, line: int | None) -> Problem:
    """The named warning of table row ``code``; ``detail`` is tosca-parser's finding as it said
    it, or the portal's own words (``wording.said``)."""
    row = LENIENCIES[code]
    return Problem.of(
        N_("%(title)s (%(row)s): %(detail)s Accepted: %(why)s"),
        line,
        code=code,
        row=code,
        title=said(row.title),
        detail=detail,
        why=said(row.why),
    )


def explain(message: str) -> str | None:
    """The table row that covers a tosca-parser message, or ``None``."""
    for pattern, code in _MESSAGES:
        if pattern.search(message):
            return code
    return None


_DEPLOY_TIME = re.compile(
    r'(?:Property|Attribute) "([^"]+)" was not found in .*?node template "([^"]+)"'
)


def deploy_time_line(message: str, found: list[Call]) -> int | None:
    """The line of the function that asks for a deploy-time value, rather than its node's."""
    match = _DEPLOY_TIME.search(message)
    if not match:
        return None
    name, node = match.groups()
    for call in found:
        args = call.args if isinstance(call.args, list) else []
        if call.function != "get_input" and name in args[1:] and args[:1] in ([node], ["SELF"]):
            return call.line
    return None


@dataclass(frozen=True)
class Call:
    """One intrinsic function in the template: its name, arguments and where it is."""

    function: str
    args: Any
    path: tuple
    line: int | None


def calls(tpl: dict, lines: dict[tuple, int]) -> list[Call]:
    """Every get_input/get_property/get_attribute in the topology, in document order."""
    found: list[Call] = []
    stack: list[tuple[Any, tuple]] = [(tpl.get("topology_template"), ("topology_template",))]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            if len(value) == 1:
                ((key, args),) = value.items()
                if key in FUNCTIONS:
                    line = lines.get((*path, key)) or _nearest_line(lines, path)
                    found.append(Call(key, args, path, line))
                    continue
            stack.extend((item, (*path, key)) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((item, (*path, pos)) for pos, item in reversed(list(enumerate(value))))
    return found


def _nearest_line(lines: dict[tuple, int], path: tuple) -> int | None:
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


def prepare(tpl: dict, lines: dict[tuple, int]) -> tuple[dict, list[Problem]]:
    """A copy of ``tpl`` for tosca-parser with the known leniencies normalised, and a named
    warning for each one found."""
    ready = copy.deepcopy(tpl)
    warnings: list[Problem] = []
    for call in calls(tpl, lines):
        if call.function != "get_property" or not isinstance(call.args, list):
            continue
        index = next((i for i, a in enumerate(call.args) if isinstance(a, int)), None)
        if index is not None and index >= 2:
            _replace(ready, call.path, {"get_property": call.args[:index]})
            warnings.append(
                problem(
                    "list-index",
                    said(
                        N_("get_property %(args)s picks item %(item)s."),
                        args=str(call.args),
                        item=call.args[index],
                    ),
                    call.line,
                )
            )
    topology = ready.get("topology_template")
    inputs = topology.get("inputs") if isinstance(topology, dict) else None
    for name, definition in (inputs or {}).items() if isinstance(inputs, dict) else ():
        if not isinstance(definition, dict):
            continue
        where = ("topology_template", "inputs", name)
        constraints = definition.get("constraints")
        if isinstance(constraints, dict):
            definition["constraints"] = [{key: value} for key, value in constraints.items()]
            warnings.append(
                problem(
                    "mapping-constraints",
                    said(N_('Input "%(name)s" lists its constraints as a mapping.'), name=name),
                    lines.get((*where, "constraints")),
                )
            )
        default = definition.get("default")
        if definition.get("type", "string") == "string" and isinstance(default, int | float):
            definition["default"] = text_of(default)
            warnings.append(
                problem(
                    "number-for-string",
                    said(
                        N_(
                            'Input "%(name)s" is a string but its default %(default)s is not '
                            "quoted."
                        ),
                        name=name,
                        default=repr(default),
                    ),
                    lines.get((*where, "default")),
                )
            )
        if definition.get("type") == "float" and type(default) is int:
            definition["default"] = float(default)
            warnings.append(
                problem(
                    "integer-for-float",
                    said(
                        N_('Input "%(name)s" is a float; its default is %(default)s.'),
                        name=name,
                        default=default,
                    ),
                    lines.get((*where, "default")),
                )
            )
    return ready, warnings


def text_of(value: Any) -> str:
    """The text a YAML scalar was most likely written as (``true`` rather than ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _replace(document: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        document = document[key]
    document[path[-1]] = value
