"""Reading the parts of a TOSCA template that the accounting needs: the topology, what a node
type derives from, and a node's capabilities and properties, tolerant of missing parts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _

from app.quotas.resolving import AccountingError

STORAGE_TYPES = frozenset({"tosca.nodes.BlockStorage", "tosca.nodes.indigo.BlockStorage"})


def topology_of(template: Any) -> tuple[Mapping, Mapping, Mapping]:
    if not isinstance(template, Mapping):
        raise AccountingError(_("The template is not a TOSCA document."))
    topology = template.get("topology_template") or {}
    if not isinstance(topology, Mapping):
        raise AccountingError(_("The template's topology_template is not a mapping."))
    node_templates = topology.get("node_templates") or {}
    if not isinstance(node_templates, Mapping):
        raise AccountingError(_("The template's node_templates is not a mapping."))
    inputs = topology.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        raise AccountingError(_("The template's inputs are not a mapping."))
    local_types = template.get("node_types") or {}
    return node_templates, inputs, local_types if isinstance(local_types, Mapping) else {}


def derives_from(node_type: Any, bases: frozenset[str] | set[str], local_types: Mapping) -> bool:
    seen = set()
    while isinstance(node_type, str) and node_type not in seen:
        if node_type in bases:
            return True
        seen.add(node_type)
        definition = local_types.get(node_type)
        node_type = definition.get("derived_from") if isinstance(definition, Mapping) else None
    return False


def is_storage(node_type: Any, local_types: Mapping) -> bool:
    if isinstance(node_type, str) and node_type.endswith("BlockStorage"):
        return True
    return derives_from(node_type, STORAGE_TYPES, local_types)


def capability(node: Mapping, name: str) -> Mapping[str, Any]:
    capabilities = node.get("capabilities")
    return properties_of(capabilities.get(name) if isinstance(capabilities, Mapping) else None)


def properties_of(entity: Any) -> Mapping[str, Any]:
    if not isinstance(entity, Mapping):
        return {}
    properties = entity.get("properties") or {}
    return properties if isinstance(properties, Mapping) else {}
