"""Where the orchestrator deploys: a site the person picked, sent as the orchestrator's SLA
placement policy, as INFN's dashboard sends it.

The orchestrator reads placement only from the template (``topology_template.policies``): at
most one policy of type ``tosca.policies.indigo.SlaPlacement`` whose ``sla_id`` property names an
SLA of the caller's (its ``PrefilterCloudProviders`` fails the deployment with "Only a single
placement policy is supported" or "No SLA with id ... available" otherwise). A site's placement
(``Site.placement``) is that SLA id.
"""

from __future__ import annotations

from typing import Any

import yaml

SLA_PLACEMENT = "tosca.policies.indigo.SlaPlacement"
# The policy's name in the template, as INFN's dashboard names it.
POLICY_NAME = "deploy_on_specific_site"


def placed(template: str, sla_id: str) -> str:
    """``template`` (TOSCA text) with one SLA placement policy naming ``sla_id``, in place of
    any the template had; its other policies are kept. Raises ValueError when the text is no
    TOSCA document."""
    document = yaml.safe_load(template)
    if not isinstance(document, dict):
        raise ValueError("The template is not a TOSCA document.")
    topology = document.setdefault("topology_template", {})
    if not isinstance(topology, dict):
        raise ValueError("The template's topology_template is not a mapping.")
    kept = [entry for entry in policy_entries(topology.get("policies")) if not _is_placement(entry)]
    policy = {"type": SLA_PLACEMENT, "properties": {"sla_id": sla_id}}
    topology["policies"] = [*kept, {POLICY_NAME: policy}]
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def policy_entries(policies: Any) -> list[dict]:
    """``policies`` as TOSCA writes them (a list of one-key mappings, or one mapping) as a list
    of one-key mappings; anything else as it is, one entry each."""
    if isinstance(policies, dict):
        return [{name: body} for name, body in policies.items()]
    if isinstance(policies, list):
        return list(policies)
    return []


def _is_placement(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    return any(
        isinstance(body, dict) and body.get("type") == SLA_PLACEMENT for body in entry.values()
    )
