"""The client against the emulator over real HTTP: answers, pages, and every kind of error."""

import pytest
import requests

from app.backends.paas.client import OrchestratorClient
from app.backends.paas.errors import (
    BadRequest,
    Conflict,
    DeploymentNotFound,
    Forbidden,
    OrchestratorUnavailable,
    Unauthorized,
    Unreachable,
    raise_for_status,
)
from app.backends.paas.schemas import DeploymentState
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE


def test_creating_a_deployment_returns_it_in_progress_with_owner_and_links(alice):
    created = alice.create_deployment(TEMPLATE, PARAMETERS, timeout_mins=60, keep_last_attempt=True)

    state = DeploymentState.from_json(created)
    assert state.status == "CREATE_IN_PROGRESS"
    assert state.created_by == {"subject": "alice-sub", "issuer": "https://iam.test/"}
    assert state.creation_time is not None and state.creation_time.second == 0
    assert {link["rel"] for link in created["links"]} == {"self", "resources", "template"}
    assert "parameters" not in created


def test_a_deployment_completes_after_polls_with_outputs_and_a_site(alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]

    first = DeploymentState.from_json(alice.get_deployment(uuid))
    done = DeploymentState.from_json(alice.get_deployment(uuid))

    assert first.status == "CREATE_IN_PROGRESS" and first.task == "DEPLOYER"
    assert done.status == "CREATE_COMPLETE"
    assert done.site == "provider-DEMO-SITE"
    # Outputs are the template's, evaluated: an address in the documentation range.
    assert done.outputs["node_ip"].startswith("203.0.113.")
    assert done.outputs["jupyter_endpoint"] == done.outputs["node_ip"]
    assert done.outputs["node_creds"]["user"] == "cloudadm"
    assert "PRIVATE KEY" in done.outputs["node_creds"]["token"]


def test_listing_follows_next_links_across_pages(alice, emulator):
    created = [alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"] for _ in range(23)]
    with emulator.client("token-bob") as bob:
        bob.create_deployment(TEMPLATE, PARAMETERS)

    listed = alice.list_deployments()

    assert [d["uuid"] for d in listed] == created[::-1]  # newest first, bob's not among them


def test_listing_by_user_group_needs_membership(alice):
    alice.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")
    alice.create_deployment(TEMPLATE, PARAMETERS)

    assert len(alice.list_deployments(user_group="physics")) == 1
    with pytest.raises(Forbidden):
        alice.list_deployments(user_group="chemistry")


def test_deleting_twice_is_a_conflict_and_the_deployment_then_disappears(alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
    alice.get_deployment(uuid)  # by now a site is chosen, so the delete has work to do

    assert alice.delete_deployment(uuid, force=False) is None
    with pytest.raises(Conflict):
        alice.delete_deployment(uuid)
    assert alice.get_deployment(uuid)["status"] == "DELETE_IN_PROGRESS"
    with pytest.raises(DeploymentNotFound) as raised:
        alice.get_deployment(uuid)
    assert raised.value.message == f"The deployment <{uuid}> doesn't exist"


def test_an_unknown_deployment_is_not_found_with_the_orchestrators_words(alice):
    with pytest.raises(DeploymentNotFound) as raised:
        alice.get_deployment("no-such-uuid")
    assert raised.value.status_code == 404
    assert "no-such-uuid" in raised.value.message


def test_a_missing_required_input_is_a_bad_request(alice):
    with pytest.raises(BadRequest) as raised:
        alice.create_deployment(TEMPLATE, {"num_cpus": 2})
    assert "ssh_public_key" in raised.value.message


def test_a_refused_token_is_unauthorized_in_both_error_shapes(emulator):
    with emulator.client("forged") as client, pytest.raises(Unauthorized) as raised:
        client.list_deployments()
    assert raised.value.message == "Invalid access token"

    emulator.faults.gateway_errors = True
    with emulator.client("forged") as client, pytest.raises(Unauthorized) as raised:
        client.list_deployments()
    assert raised.value.message == "Invalid access token"


def test_another_owners_deployment_is_forbidden(alice, emulator):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]

    with emulator.client("token-bob") as bob:
        with pytest.raises(Forbidden):
            bob.delete_deployment(uuid)
        with pytest.raises(Forbidden):
            bob.get_log(uuid)


def test_a_concurrent_update_conflict_keeps_the_retry_after_header(alice, emulator):
    emulator.faults.status = 409
    response = requests.get(
        f"{emulator.url}/deployments", headers={"Authorization": "Bearer token-alice"}, timeout=2
    )
    with pytest.raises(Conflict) as raised:
        raise_for_status(response)
    assert raised.value.retry_after == 0
    assert "concurrent update" in raised.value.message


def test_a_state_conflict_has_no_retry_after(alice, emulator):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]

    response = requests.put(
        f"{emulator.url}/deployments/{uuid}",
        json={"template": TEMPLATE, "parameters": PARAMETERS},
        headers={"Authorization": "Bearer token-alice"},
        timeout=2,
    )
    with pytest.raises(Conflict) as raised:
        raise_for_status(response)
    assert raised.value.retry_after is None


def test_a_server_error_counts_as_unavailable(alice, emulator):
    emulator.faults.status = 500
    with pytest.raises(OrchestratorUnavailable) as raised:
        alice.info()
    assert raised.value.status_code == 500
    assert "Injected failure" in raised.value.message


def test_a_closed_port_is_unreachable_so_certainly_did_nothing(closed_port_url):
    client = OrchestratorClient(closed_port_url, lambda: "token", timeout=1)
    with client, pytest.raises(Unreachable) as raised:
        client.get_deployment("any")
    assert raised.value.message == "The orchestrator cannot be reached right now."


def test_an_answer_slower_than_the_read_timeout_counts_as_unavailable(emulator):
    emulator.faults.delay = 0.6
    with emulator.client(timeout=(1, 0.2)) as client, pytest.raises(OrchestratorUnavailable):
        client.info()


def test_template_log_extrainfo_and_info_are_read_as_sent(alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]

    assert alice.get_template(uuid) == TEMPLATE
    assert uuid in alice.get_log(uuid)
    assert alice.get_extrainfo(uuid) == "[]"
    assert alice.info()["build"]["version"] == "emulator"


def test_only_the_root_is_answered_without_a_token(emulator):
    assert requests.get(emulator.url + "/", timeout=2).status_code == 200
    answer = requests.get(emulator.url + "/info", timeout=2)
    assert answer.status_code == 401
    assert set(answer.json()) == {"code", "title", "message"}


def test_every_client_call_carries_the_bearer_token(emulator):
    seen = []
    with emulator.client() as client:
        client.session.hooks["response"].append(
            lambda response, **kw: seen.append(response.request.headers.get("Authorization"))
        )
        uuid = client.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
        client.get_deployment(uuid)
        client.list_deployments()
        client.delete_deployment(uuid)
    assert seen == ["Bearer token-alice"] * 4


# --- Against the emulator server process (tests/fixtures/orchestrator_emulator.py) ------------

SERVER_TOKEN = "tok-carol"  # noqa: S105 - a test token


@pytest.fixture
def carol(orchestrator_emulator):
    orchestrator_emulator.add_token(SERVER_TOKEN, "carol-sub", "https://iam.test/", ["physics"])
    client = OrchestratorClient(orchestrator_emulator.url, lambda: SERVER_TOKEN, (1, 1))
    with client:
        yield client


def test_listing_asks_for_large_pages_and_follows_links(carol, orchestrator_emulator):
    made = {
        carol.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")["uuid"]
        for _ in range(5)
    }
    orchestrator_emulator.clear_requests()

    listed = carol.list_deployments(size=2)

    assert {d["uuid"] for d in listed} == made
    pages = [r for r in orchestrator_emulator.requests() if r["path"] == "/deployments"]
    assert len(pages) == 3


def test_a_hanging_server_is_unavailable_after_the_read_timeout_not_unreachable(
    carol, orchestrator_emulator
):
    orchestrator_emulator.set_faults(hang=True)
    with pytest.raises(OrchestratorUnavailable) as raised:
        carol.list_deployments()
    orchestrator_emulator.clear_faults()
    assert not isinstance(raised.value, Unreachable)


@pytest.mark.parametrize("with_body", [True, False])
def test_a_500_with_or_without_a_body_is_unavailable(carol, orchestrator_emulator, with_body):
    orchestrator_emulator.set_faults(error_rate=1.0, error_status=500, error_body=with_body)
    with pytest.raises(OrchestratorUnavailable) as raised:
        carol.list_deployments()
    assert raised.value.status_code == 500
    assert not isinstance(raised.value, Unreachable)


def test_a_lost_create_answer_is_unavailable_though_the_deployment_exists(
    carol, orchestrator_emulator
):
    orchestrator_emulator.set_faults(lose_create_response="drop")
    with pytest.raises(OrchestratorUnavailable) as raised:
        carol.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")
    orchestrator_emulator.clear_faults()
    assert not isinstance(raised.value, Unreachable)
    assert len(orchestrator_emulator.deployments()) == 1


def test_a_stuck_delete_is_reset_and_resources_are_listed(carol, orchestrator_emulator):
    uuid = carol.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")["uuid"]
    orchestrator_emulator.set_status(uuid, "CREATE_COMPLETE")
    carol.delete_deployment(uuid, force=True)

    carol.reset_deployment(uuid)

    assert carol.get_deployment(uuid)["status"] == "DELETE_FAILED"
    resources = carol.list_resources(uuid)
    assert all({"uuid", "state", "toscaNodeName"} <= set(r) for r in resources)
