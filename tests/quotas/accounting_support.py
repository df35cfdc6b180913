"""Helpers for the accounting tests: templates to count, and how to read the totals."""

from pathlib import Path

import yaml

from app.quotas.accounting import Resources

CATALOGUE = Path(__file__).parents[2] / "tosca-catalog"
COMPAT = Path(__file__).parents[1] / "data" / "tosca-compat"
GB, GiB, MB = 10**9, 2**30, 10**6


def starter(slug: str) -> dict:
    return yaml.safe_load((CATALOGUE / f"{slug}.yaml").read_text(encoding="utf-8"))


def totals(resources: Resources) -> tuple:
    return resources.nodes, resources.cpus, resources.gpus, resources.memory, resources.disk


def topology(node_templates: dict, inputs: dict | None = None, **extra) -> dict:
    return {
        "tosca_definitions_version": "tosca_simple_yaml_1_0",
        "topology_template": {"inputs": inputs or {}, "node_templates": node_templates},
        **extra,
    }


def compute(host: dict, count=None, node_type="tosca.nodes.indigo.Compute") -> dict:
    capabilities = {"host": {"properties": host}}
    if count is not None:
        capabilities["scalable"] = {"properties": {"count": count}}
    return {"type": node_type, "capabilities": capabilities}
