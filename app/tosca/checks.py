"""The checks that block publishing whatever the type definitions say.

These find what the orchestrator would certainly refuse, without any type definitions: a file
that is not a TOSCA template, a node without a type, a ``get_input`` of an input the template
does not define, a function naming a node template that does not exist. Everything found by
type-level validation is a warning instead (see ``tosca``).
"""

from __future__ import annotations

from app.tosca.leniency import calls
from app.tosca.yamlsafe import Problem

# Names a function may use instead of a node template's name.
_KEYWORDS = {"SELF", "SOURCE", "TARGET", "HOST", "SOURCES", "TARGETS"}


def other_dialect(version: object, imports: object = None) -> str | None:
    """Why a file whose tosca_definitions_version names no TOSCA Simple Profile version is not
    for the orchestrator, in words for the admin; None for a ``tosca_`` version or none at all.

    Alien4Cloud's own dialect (``alien_dsl_*``, used with Yorc) looks like TOSCA but imports
    its types as archives of an Alien4Cloud catalogue (``name:version``), which neither the
    orchestrator nor the portal's type libraries hold: saying "no version" would send the
    admin looking for a line that is there.
    """
    version = str(version or "").strip()
    if not version or version.startswith("tosca_"):
        return None
    if version.startswith("alien_dsl"):
        archives = [i for i in imports if isinstance(i, str)] if isinstance(imports, list) else []
        named = f" ({', '.join(archives[:3])}{', ...' if len(archives) > 3 else ''})"
        return (
            f"tosca_definitions_version {version} is Alien4Cloud's own dialect (used with "
            "Yorc): the file was written for that orchestrator. It imports its types as "
            f"catalogue archives{named if archives else ''}, which this portal's orchestrator "
            "cannot resolve."
        )
    return (
        f"tosca_definitions_version {version} is not a TOSCA Simple Profile version such as "
        "tosca_simple_yaml_1_0: the orchestrator does not read it."
    )


def structural_problems(tpl: dict, lines: dict[tuple, int]) -> list[Problem]:
    """Problems that make a template undeployable, each with its line where known."""
    problems = []
    version_line = lines.get(("tosca_definitions_version",)) or 1
    dialect = other_dialect(tpl.get("tosca_definitions_version"), tpl.get("imports"))
    if dialect:
        problems.append(Problem(dialect, version_line))
    elif not tpl.get("tosca_definitions_version"):
        problems.append(
            Problem(
                "The file has no tosca_definitions_version (such as tosca_simple_yaml_1_0): it is "
                "not a TOSCA template.",
                version_line,
            )
        )
    topology = tpl.get("topology_template")
    if not isinstance(topology, dict):
        problems.append(Problem("The template has no topology_template to deploy.", 1))
        return problems
    nodes = topology.get("node_templates")
    if not isinstance(nodes, dict) or not nodes:
        problems.append(
            Problem(
                "topology_template has no node_templates: there is nothing to deploy.",
                lines.get(("topology_template",)),
            )
        )
        nodes = {}
    for name, node in nodes.items():
        where = lines.get(("topology_template", "node_templates", name))
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            problems.append(Problem(f'Node template "{name}" has no type.', where))
    inputs = topology.get("inputs") if isinstance(topology.get("inputs"), dict) else {}
    relationships = topology.get("relationship_templates")
    names = {*nodes, *(relationships if isinstance(relationships, dict) else ())}
    for call in calls(tpl, lines):
        # Policies and groups only steer placement; published templates leave placeholders
        # there that the orchestrator ignores.
        if call.path[1] not in ("policies", "groups"):
            problems.extend(_call_problems(call, inputs, names))
    return problems


def _call_problems(call, inputs: dict, nodes: set) -> list[Problem]:
    args = call.args
    if call.function == "get_input":
        name = args[0] if isinstance(args, list) and args else args
        if not isinstance(name, str):
            return [Problem(f"get_input needs an input name, not {args!r}.", call.line)]
        if name not in inputs:
            return [
                Problem(
                    f"get_input: {name} names an input the template does not define "
                    f"(inputs: {', '.join(map(str, inputs)) or 'none'}).",
                    call.line,
                )
            ]
        return []
    if not isinstance(args, list) or len(args) < 2:
        return [
            Problem(f"{call.function} needs a list such as [node, name], not {args!r}.", call.line)
        ]
    target = args[0]
    if isinstance(target, str) and target not in _KEYWORDS and target not in nodes:
        return [
            Problem(
                f'{call.function}: {args} names node template "{target}", which the template '
                "does not define.",
                call.line,
            )
        ]
    return []
