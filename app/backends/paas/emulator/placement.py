"""The orchestrator's SLA placement, as the emulator follows it.

Read from ``topology_template.policies`` as the orchestrator reads it
(``ToscaServiceImpl.extractPlacementPolicies``, ``PrefilterCloudProviders``):

- at create, a policy that is not a mapping with a ``type`` is a template that does not parse
  (400; ``rules.check_policies``);
- at brokering, more than one SLA placement fails the deployment with "Only a single placement
  policy is supported", and one whose ``sla_id`` names no SLA of the caller's with "No SLA with
  id <id> available"; one that names a known SLA places the deployment at that SLA's site.
  Policies of other types are skipped, as there.

The emulator's SLAs (id to the cloud provider it places at) are ``SLAS`` unless set through the
control API's settings (``slas``).
"""

from __future__ import annotations

from collections.abc import Mapping

from app.backends.paas.emulator.rules import read_template
from app.backends.paas.placement import SLA_PLACEMENT, policy_entries

# The emulator's SLAs: the sites of ``make run``'s capacity demo (RECAS-BARI and DEMO-SITE, the
# site the emulator places at when no SLA is named) and one more for tests.
SLAS = {
    "sla-recas-bari": "provider-RECAS-BARI",
    "sla-demo-site": "provider-DEMO-SITE",
    "sla-cloud-cnaf": "provider-CLOUD-CNAF",
}


def _policies(tosca: dict) -> list:
    topology = tosca.get("topology_template")
    return policy_entries(topology.get("policies")) if isinstance(topology, dict) else []


def placement(template: str, slas: Mapping[str, str]) -> tuple[str | None, str | None]:
    """Where brokering places a deployment of ``template``: (site, None), (None, why it
    fails), or (None, None) when no SLA placement is asked for (the emulator's own site)."""
    found = [
        body
        for entry in _policies(read_template(template))
        for body in entry.values()
        if isinstance(body, dict) and body.get("type") == SLA_PLACEMENT
    ]
    if not found:
        return None, None
    if len(found) > 1:
        return None, "Only a single placement policy is supported"
    properties = found[0].get("properties")
    sla_id = properties.get("sla_id") if isinstance(properties, dict) else None
    if sla_id not in slas:
        return None, f"No SLA with id {sla_id} available"
    return slas[sla_id], None
