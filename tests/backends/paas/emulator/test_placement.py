"""A site picked at launch reaches the orchestrator as its SLA placement policy: the backend
writes the policy as INFN's dashboard does, and the emulator accepts what the orchestrator
accepts (and places the deployment at that SLA's site) and refuses what it refuses."""

import pytest
import yaml

from app.backends.base import CreateRequest
from app.backends.paas.backend import PaasBackend
from app.backends.paas.emulator.core import create_emulator, static_tokens
from app.backends.paas.placement import SLA_PLACEMENT, placed
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE, TOKENS

ALICE_HEADERS = {"Authorization": "Bearer token-alice"}


@pytest.fixture
def http():
    return create_emulator(static_tokens(TOKENS), complete_after_polls=1).test_client()


def create_and_broker(http, template: str) -> dict:
    answer = http.post(
        "/deployments",
        json={"template": template, "parameters": PARAMETERS},
        headers=ALICE_HEADERS,
    )
    assert answer.status_code == 201, answer.get_json()
    uuid = answer.get_json()["uuid"]
    http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS)  # brokering, then done
    return http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).get_json()


def with_policies(policies) -> str:
    document = yaml.safe_load(TEMPLATE)
    document["topology_template"]["policies"] = policies
    return yaml.safe_dump(document, sort_keys=False)


def sla(sla_id, name="deploy_on_specific_site"):
    return {name: {"type": SLA_PLACEMENT, "properties": {"sla_id": sla_id}}}


def test_the_policy_is_written_as_the_dashboard_writes_it_keeping_other_policies():
    template = with_policies([sla("old-sla"), {"scale": {"type": "tosca.policies.Scaling"}}])
    policies = yaml.safe_load(placed(template, "sla-recas-bari"))["topology_template"]["policies"]
    assert policies == [
        {"scale": {"type": "tosca.policies.Scaling"}},
        sla("sla-recas-bari"),
    ]
    assert "node_templates" in yaml.safe_load(placed(TEMPLATE, "x"))["topology_template"]


def test_the_backend_sends_the_placement_only_when_a_site_was_picked():
    sent = []

    class Client:
        def create_deployment(self, template, parameters, **options):
            sent.append(template)
            return {"uuid": "11111111-2222-3333-4444-555555555555", "status": "CREATE_IN_PROGRESS"}

    backend = PaasBackend(Client())
    backend.create(CreateRequest(TEMPLATE, {}, tag="t", site="sla-cloud-cnaf"))
    backend.create(CreateRequest(TEMPLATE, {}, tag="t"))
    assert "sla_id: sla-cloud-cnaf" in sent[0]
    assert sent[1] == TEMPLATE


def test_a_known_sla_places_the_deployment_at_its_site(http):
    done = create_and_broker(http, placed(TEMPLATE, "sla-recas-bari"))
    assert done["status"] == "CREATE_COMPLETE"
    assert done["cloudProviderName"] == "provider-RECAS-BARI"


def test_a_policy_map_is_read_like_a_policy_list(http):
    done = create_and_broker(http, with_policies(sla("sla-cloud-cnaf")))
    assert done["cloudProviderName"] == "provider-CLOUD-CNAF"


def test_an_unknown_sla_fails_the_deployment_at_brokering_as_the_orchestrator_does(http):
    done = create_and_broker(http, placed(TEMPLATE, "sla-nowhere"))
    assert done["status"] == "CREATE_FAILED"
    assert done["statusReason"] == "No SLA with id sla-nowhere available"
    assert "cloudProviderName" not in done


def test_two_placement_policies_fail_the_deployment(http):
    done = create_and_broker(
        http, with_policies([sla("sla-recas-bari"), sla("sla-cloud-cnaf", "b")])
    )
    assert done["status"] == "CREATE_FAILED"
    assert done["statusReason"] == "Only a single placement policy is supported"


def test_other_policies_are_skipped_and_the_emulators_own_site_is_used(http):
    done = create_and_broker(http, with_policies([{"scale": {"type": "tosca.policies.Scaling"}}]))
    assert done["status"] == "CREATE_COMPLETE"
    assert done["cloudProviderName"] == "provider-DEMO-SITE"


@pytest.mark.parametrize(
    "policies",
    [[{"no_type": {"properties": {"sla_id": "x"}}}], ["just words"], [{"a": {}, "b": {}}]],
)
def test_a_policy_that_does_not_parse_is_refused_with_400(http, policies):
    answer = http.post(
        "/deployments",
        json={"template": with_policies(policies), "parameters": PARAMETERS},
        headers=ALICE_HEADERS,
    )
    assert answer.status_code == 400
    assert answer.get_json()["message"].startswith("Failed to parse template")
