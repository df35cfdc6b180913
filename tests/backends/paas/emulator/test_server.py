"""The emulator as a real HTTP server (the ``orchestrator_emulator`` fixture): its tokens and
group rule, its life cycle and callbacks, its control API, seen through the portal's own client.
Faults are in test_faults.py."""

import time

import pytest
import requests

from app.backends.paas.client import OrchestratorClient
from app.backends.paas.emulator.placement import SLAS
from app.backends.paas.errors import BadRequest, Forbidden, Unauthorized
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE

ISSUER = "https://iam.test/"


def with_people(emulator):
    """``emulator`` trusting ada (physics) and bob (chemistry)."""
    emulator.add_token("tok-ada", "ada-sub", ISSUER, groups=["physics"])
    emulator.add_token("tok-bob", "bob-sub", ISSUER, groups=["chemistry"])
    return emulator


@pytest.fixture
def emu(orchestrator_emulator):
    return with_people(orchestrator_emulator)


def client(emu, token="tok-ada", timeout=(2, 2)):  # noqa: S107
    return OrchestratorClient(emu.url, lambda: token, timeout)


def create(emu, token="tok-ada", group="physics", **options):  # noqa: S107
    with client(emu, token) as ada:
        return ada.create_deployment(TEMPLATE, PARAMETERS, user_group=group, **options)


def wait_for(predicate, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


@pytest.fixture
def receiver(callback_receiver):
    return callback_receiver


# --- authentication and the INFN fork's group rule ------------------------------------------


def test_calls_without_a_registered_token_are_unauthorized(emu):
    with client(emu, "tok-unknown") as stranger, pytest.raises(Unauthorized):
        stranger.list_deployments()
    assert requests.get(f"{emu.url}/deployments", timeout=2).status_code == 401


def test_under_the_infn_rule_a_create_needs_a_group_of_the_token(emu):
    with pytest.raises(Forbidden) as without_group:
        create(emu, group=None)
    with pytest.raises(Forbidden) as other_group:
        create(emu, group="chemistry")
    created = create(emu, group="physics")

    assert without_group.value.message == "The group null is not in the user's authorized groups"
    assert "chemistry is not in the user's authorized groups" in other_group.value.message
    assert created["userGroup"] == "physics"


def test_a_token_without_any_group_claim_cannot_create_under_the_infn_rule(emu):
    emu.add_token("tok-groupless", "carl-sub", ISSUER)
    with pytest.raises(Forbidden) as raised:
        create(emu, token="tok-groupless", group="physics")  # noqa: S106
    assert "does not contain a group claim" in raised.value.message


def test_wlcg_groups_count_with_a_leading_slash_and_both_claims_must_agree(emu):
    emu.add_token("tok-wlcg", "dora-sub", ISSUER, groups=None, wlcg_groups=["/physics"])
    emu.add_token("tok-both", "eve-sub", ISSUER, groups=["physics"], wlcg_groups=["/other"])

    assert create(emu, token="tok-wlcg")["status"] == "CREATE_IN_PROGRESS"  # noqa: S106
    with pytest.raises(Forbidden):
        create(emu, token="tok-both")  # noqa: S106


def test_listing_by_a_group_is_checked_and_the_indigo_rule_checks_nothing(emu):
    create(emu)
    with client(emu) as ada:
        assert len(ada.list_deployments(user_group="physics")) == 1
        with pytest.raises(Forbidden):
            ada.list_deployments(user_group="chemistry")
        emu.configure(group_rule="indigo")
        assert ada.list_deployments(user_group="chemistry") == []
    assert create(emu, group=None)["status"] == "CREATE_IN_PROGRESS"


def test_ownership_separates_users_and_createdby_lists_only_ones_own(emu):
    uuid = create(emu)["uuid"]
    with client(emu, "tok-bob") as bob:
        assert bob.list_deployments() == []
        with pytest.raises(Forbidden):
            bob.list_deployments(created_by=f"ada-sub@{ISSUER}")
        with pytest.raises(Forbidden):
            bob.delete_deployment(uuid)
    with client(emu) as ada:
        assert [d["uuid"] for d in ada.list_deployments(created_by=f"ada-sub@{ISSUER}")] == [uuid]


# --- life cycle, outputs and callbacks ------------------------------------------------------


def test_set_status_completes_with_outputs_and_posts_the_deployment_to_its_callback(emu, receiver):
    uuid = create(emu, callback=receiver.url)["uuid"]
    emu.set_status(uuid, "CREATE_COMPLETE")

    [call] = wait_for(lambda: receiver.received)
    assert call["path"] == "/callback/secret-part"
    assert call["headers"]["Content-Type"] == "application/json"
    assert call["body"]["uuid"] == uuid and call["body"]["status"] == "CREATE_COMPLETE"
    assert "links" not in call["body"] and "parameters" not in call["body"]
    assert call["body"]["outputs"]["node_ip"].startswith("203.0.113.")
    assert call["body"]["cloudProviderEndpoint"]["deploymentType"] == "OPENSTACK"
    assert wait_for(emu.callbacks) == [
        {"url": receiver.url, "uuid": uuid, "status": "CREATE_COMPLETE", "code": 200}
    ]


def test_a_failed_create_calls_back_with_its_reason(emu, receiver):
    uuid = create(emu, callback=receiver.url)["uuid"]
    emu.set_status(uuid, "CREATE_FAILED", reason="No site has enough GPUs")
    [call] = wait_for(lambda: receiver.received)
    assert call["body"]["statusReason"] == "No site has enough GPUs"


def test_deployments_move_on_by_themselves_and_call_back_without_being_polled(emu, receiver):
    emu.configure(complete_after_seconds=0.2)
    uuid = create(emu, callback=receiver.url)["uuid"]
    [call] = wait_for(lambda: receiver.received)
    assert call["body"]["status"] == "CREATE_COMPLETE"

    with client(emu) as ada:
        ada.delete_deployment(uuid)
        assert wait_for(lambda: ada.list_deployments() == [])
    # A completed delete is not called back: the record is gone before the notify step.
    assert [call["body"]["status"] for call in receiver.received] == ["CREATE_COMPLETE"]
    # Only listings: nobody polled the deployment itself.
    gets = {(r["path"], r["query"]["createdBy"]) for r in emu.requests() if r["method"] == "GET"}
    assert gets == {("/deployments", "me")}


def test_an_unreachable_callback_is_logged_and_changes_nothing(emu, closed_port_url):
    uuid = create(emu, callback=f"{closed_port_url}/callback")["uuid"]
    emu.set_status(uuid, "CREATE_COMPLETE")
    [outcome] = wait_for(emu.callbacks)
    assert "error" in outcome
    assert emu.deployments()[0]["status"] == "CREATE_COMPLETE"


def test_delete_complete_makes_the_deployment_unknown(emu):
    uuid = create(emu)["uuid"]
    emu.set_status(uuid, "DELETE_COMPLETE")
    response = requests.get(
        f"{emu.url}/deployments/{uuid}", timeout=2, headers={"Authorization": "Bearer tok-ada"}
    )
    assert response.status_code == 404
    assert response.json()["message"] == f"The deployment <{uuid}> doesn't exist"


def test_the_create_body_is_kept_as_received_for_assertions(emu):
    uuid = create(emu, keep_last_attempt=True, timeout_mins=30)["uuid"]
    submitted = emu.submitted(uuid)
    assert submitted["parameters"] == PARAMETERS
    assert submitted["keepLastAttempt"] is True and submitted["timeoutMins"] == 30
    assert submitted["template"] == TEMPLATE


# --- control API and request log --------------------------------------------------------------


def test_the_control_api_needs_the_secret_and_is_not_logged(emu):
    assert requests.get(f"{emu.url}/__emulator__/deployments", timeout=2).status_code == 404
    wrong = {"X-Emulator-Secret": "guess"}
    assert (
        requests.get(f"{emu.url}/__emulator__/deployments", headers=wrong, timeout=2).status_code
        == 404
    )
    create(emu)
    emu.deployments()
    assert [(r["method"], r["path"]) for r in emu.requests()] == [("POST", "/deployments")]


def test_paging_links_are_followed_to_the_end_with_the_chosen_size(emu):
    created = [create(emu)["uuid"] for _ in range(7)]
    emu.clear_requests()
    with client(emu) as ada:
        listed = ada.list_deployments()
    assert [d["uuid"] for d in listed] == created[::-1]
    pages = [r["query"].get("page", "0") for r in emu.requests()]
    assert pages == ["0"]  # the default size (10) holds them all

    first = requests.get(
        f"{emu.url}/deployments",
        params={"size": 3, "page": 2},
        timeout=2,
        headers={"Authorization": "Bearer tok-ada"},
    ).json()
    assert first["page"] == {"size": 3, "totalElements": 7, "totalPages": 3, "number": 2}
    assert [link["rel"] for link in first["links"]] == ["first", "prev", "self", "last"]
    assert [d["uuid"] for d in first["content"]] == [created[0]]


def test_reset_forgets_deployments_faults_and_the_log_but_keeps_tokens(emu):
    create(emu)
    emu.set_faults(latency=0.01)
    emu.reset()
    assert emu.deployments() == [] and emu.requests() == []
    assert create(emu)["status"] == "CREATE_IN_PROGRESS"


def test_a_bad_request_keeps_the_orchestrators_words(emu):
    with client(emu) as ada, pytest.raises(BadRequest) as raised:
        ada.create_deployment(TEMPLATE, {}, user_group="physics")
    assert "Input <ssh_public_key> is required" in raised.value.message


def test_an_admin_token_may_list_someone_elses_deployments(emu):
    uuid = create(emu)["uuid"]
    emu.add_token("tok-root", "root-sub", ISSUER, groups=["admins"], admin=True)
    with client(emu, "tok-root") as root:
        assert [d["uuid"] for d in root.list_deployments(created_by=f"ada-sub@{ISSUER}")] == [uuid]
        assert root.list_deployments() == []


def test_a_failed_create_keeps_its_resources_only_with_keep_last_attempt(emu):
    kept = create(emu, keep_last_attempt=True)["uuid"]
    released = create(emu, keep_last_attempt=False)["uuid"]
    for uuid in (kept, released):
        emu.set_status(uuid, "CREATE_FAILED", reason="Quota exceeded at every site")
    headers = {"Authorization": "Bearer tok-ada"}

    def resources(uuid):
        answer = requests.get(f"{emu.url}/deployments/{uuid}/resources", headers=headers, timeout=2)
        return answer.json()["content"]

    assert {r["state"] for r in resources(kept)} == {"ERROR"}
    assert resources(released) == []


def test_the_control_api_refuses_bad_settings_tokens_and_unknown_deployments(emu):
    headers = {"X-Emulator-Secret": emu._secret}

    def control(method, path, body):
        answer = requests.request(
            method, f"{emu.url}/__emulator__/{path}", json=body, headers=headers, timeout=2
        )
        return answer.status_code, answer.json()

    assert control("PUT", "settings", {"group_rule": "lenient"}) == (
        400,
        {"error": "group_rule must be one of infn, given, indigo"},
    )
    assert control("PUT", "settings", {"colour": 1})[0] == 400
    assert control("PUT", "settings", {"complete_after_seconds": -1})[0] == 400
    assert control("POST", "tokens", {"token": "t", "subject": "s"})[0] == 400
    assert control("PUT", "faults", {"explode": True})[0] == 400
    assert control("POST", "deployments/nope/status", {"status": "CREATE_COMPLETE"})[0] == 404
    assert control("PUT", "settings", {"slas": ["sla-1"]})[0] == 400
    defaults = {
        "complete_after_polls": None,
        "complete_after_seconds": None,
        "group_rule": "infn",
        "slas": SLAS,
    }
    assert control("GET", "settings", None) == (200, defaults)


def test_changes_need_the_offline_access_scope_when_scopes_are_known(emu):
    emu.add_token("tok-short", "fay-sub", ISSUER, groups=["physics"], scopes=["openid", "profile"])
    with client(emu, "tok-short") as fay:
        assert fay.list_deployments() == []
    with pytest.raises(Forbidden) as raised:
        create(emu, token="tok-short")  # noqa: S106
    assert raised.value.message == "Insufficient scope for this resource: offline_access"
    assert emu.deployments() == []
