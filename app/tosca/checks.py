"""The checks that block publishing whatever the type definitions say.

These find what the orchestrator would certainly refuse, without any type definitions: a file
that is not a TOSCA template, a node without a type, a ``get_input`` of an input the template
does not define, a function or a requirement naming a node template that does not exist. What
else type-level validation finds is a warning, unless the backend runs the same type check
itself (see ``tosca``).
"""

from __future__ import annotations

from app.tosca.leniency import calls
from app.tosca.wording import N_, english, said
from app.tosca.yamlsafe import Problem

# Names a function may use instead of a node template's name.
_KEYWORDS = {"SELF", "SOURCE", "TARGET", "HOST", "SOURCES", "TARGETS"}


def other_dialect(version: object, imports: object = None) -> str | None:
    """Why a file whose tosca_definitions_version names no TOSCA Simple Profile version is not
    for the orchestrator, in English words for the admin; None for a ``tosca_`` version or none
    at all (``dialect_words`` gives the same in words to translate)."""
    found = dialect_words(version, imports)
    return english(found["msgid"], found["params"]) if found else None


def dialect_words(version: object, imports: object = None) -> dict | None:
    """``other_dialect`` as a message to translate where it is shown (``wording.said``).

    Alien4Cloud's own dialect (``alien_dsl_*``, used with Yorc) looks like TOSCA but imports
    its types as archives of an Alien4Cloud catalogue (``name:version``), which neither the
    orchestrator nor the portal's type libraries hold: saying "no version" would send the
    admin looking for a line that is there.
    """
    # A bare number (``tosca_definitions_version: 1.0``) is a version line all the same.
    version = str("" if version is None else version).strip()
    if not version or version.startswith("tosca_"):
        return None
    if version.startswith("alien_dsl"):
        archives = [i for i in imports if isinstance(i, str)] if isinstance(imports, list) else []
        named = f"{', '.join(archives[:3])}{', ...' if len(archives) > 3 else ''}"
        if not archives:
            return said(
                N_(
                    "tosca_definitions_version %(version)s is Alien4Cloud's own dialect (used "
                    "with Yorc): the file was written for that orchestrator. It imports its types "
                    "as catalogue archives, which this portal's orchestrator cannot resolve."
                ),
                version=version,
            )
        return said(
            N_(
                "tosca_definitions_version %(version)s is Alien4Cloud's own dialect (used with "
                "Yorc): the file was written for that orchestrator. It imports its types as "
                "catalogue archives (%(archives)s), which this portal's orchestrator cannot "
                "resolve."
            ),
            version=version,
            archives=named,
        )
    return said(
        N_(
            "tosca_definitions_version %(version)s is not a TOSCA Simple Profile version such "
            "as tosca_simple_yaml_1_0: the orchestrator does not read it."
        ),
        version=version,
    )


def structural_problems(tpl: dict, lines: dict[tuple, int]) -> list[Problem]:
    """Problems that make a template undeployable, each with its line where known."""
    problems = []
    version_line = lines.get(("tosca_definitions_version",)) or 1
    dialect = dialect_words(tpl.get("tosca_definitions_version"), tpl.get("imports"))
    if dialect:
        problems.append(Problem.of(dialect["msgid"], version_line, **dialect["params"]))
    elif tpl.get("tosca_definitions_version") in (None, ""):
        problems.append(
            Problem.of(
                N_(
                    "The file has no tosca_definitions_version (such as tosca_simple_yaml_1_0): "
                    "it is not a TOSCA template."
                ),
                version_line,
            )
        )
    topology = tpl.get("topology_template")
    if not isinstance(topology, dict):
        problems.append(Problem.of(N_("The template has no topology_template to deploy."), 1))
        return problems
    nodes = topology.get("node_templates")
    if not isinstance(nodes, dict) or not nodes:
        problems.append(
            Problem.of(
                N_("topology_template has no node_templates: there is nothing to deploy."),
                lines.get(("topology_template",)),
            )
        )
        nodes = {}
    for name, node in nodes.items():
        where = lines.get(("topology_template", "node_templates", name))
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            problems.append(
                Problem.of(N_('Node template "%(name)s" has no type.'), where, name=name)
            )
    inputs = topology.get("inputs") if isinstance(topology.get("inputs"), dict) else {}
    relationships = topology.get("relationship_templates")
    names = {*nodes, *(relationships if isinstance(relationships, dict) else ())}
    for call in calls(tpl, lines):
        # Policies and groups only steer placement; published templates leave placeholders
        # there that the orchestrator ignores.
        if call.path[1] not in ("policies", "groups"):
            problems.extend(_call_problems(call, inputs, names))
    problems.extend(_requirement_problems(nodes, names, lines))
    return problems


def _requirement_problems(nodes: dict, names: set, lines: dict[tuple, int]) -> list[Problem]:
    """A requirement whose target names no node template of the template: every backend looks
    the name up among the node templates and refuses the template, or deploys the node without
    what it requires. A dotted name is a node type, which TOSCA allows as a target."""
    problems = []
    for name, node in nodes.items():
        requirements = node.get("requirements") if isinstance(node, dict) else None
        for position, item in enumerate(requirements if isinstance(requirements, list) else []):
            if not isinstance(item, dict) or len(item) != 1:
                continue
            ((requirement, assignment),) = item.items()
            target = assignment.get("node") if isinstance(assignment, dict) else assignment
            if not isinstance(target, str) or target in names or "." in target:
                continue
            path = ("topology_template", "node_templates", name, "requirements", position)
            problems.append(
                Problem.of(
                    N_(
                        'Node template "%(name)s" requires %(requirement)s: "%(target)s", a '
                        "node template the template does not define (it defines %(nodes)s)."
                    ),
                    lines.get((*path, requirement)) or lines.get(path),
                    name=name,
                    requirement=requirement,
                    target=target,
                    nodes=", ".join(map(str, nodes)),
                )
            )
    return problems


def _call_problems(call, inputs: dict, nodes: set) -> list[Problem]:
    args = call.args
    if call.function == "get_input":
        name = args[0] if isinstance(args, list) and args else args
        if not isinstance(name, str):
            return [
                Problem.of(
                    N_("get_input needs an input name, not %(args)s."), call.line, args=repr(args)
                )
            ]
        if name not in inputs:
            if not inputs:
                return [
                    Problem.of(
                        N_(
                            "get_input: %(name)s names an input the template does not define "
                            "(it defines no inputs)."
                        ),
                        call.line,
                        name=name,
                    )
                ]
            return [
                Problem.of(
                    N_(
                        "get_input: %(name)s names an input the template does not define "
                        "(inputs: %(inputs)s)."
                    ),
                    call.line,
                    name=name,
                    inputs=", ".join(map(str, inputs)),
                )
            ]
        return []
    if not isinstance(args, list) or len(args) < 2:
        return [
            Problem.of(
                N_("%(function)s needs a list such as [node, name], not %(args)s."),
                call.line,
                function=call.function,
                args=repr(args),
            )
        ]
    target = args[0]
    if isinstance(target, str) and target not in _KEYWORDS and target not in nodes:
        return [
            Problem.of(
                N_(
                    '%(function)s: %(args)s names node template "%(target)s", which the template '
                    "does not define."
                ),
                call.line,
                function=call.function,
                args=str(args),
                target=target,
            )
        ]
    return []
