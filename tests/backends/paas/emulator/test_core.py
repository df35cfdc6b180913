"""The emulator refuses what the real orchestrator refuses (and unknown fields, on purpose)."""

import time

import pytest
import requests

from app.backends.paas.client import OrchestratorClient
from app.backends.paas.emulator.core import Faults, create_emulator, emulator_of, static_tokens
from app.backends.paas.emulator.demo import DemoTokens, WSGITransport
from app.backends.paas.emulator.rules import Identity
from app.backends.paas.errors import OrchestratorUnavailable
from tests.backends.paas.conftest import ALICE, PARAMETERS, TEMPLATE, TOKENS

ALICE_HEADERS = {"Authorization": "Bearer token-alice"}
BOB_HEADERS = {"Authorization": "Bearer token-bob"}


@pytest.fixture
def emulator_app():
    return create_emulator(static_tokens(TOKENS), complete_after_polls=1)


@pytest.fixture
def http(emulator_app):
    return emulator_app.test_client()


def create(http, **body):
    return http.post("/deployments", json=body, headers=ALICE_HEADERS)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            {"template": TEMPLATE, "parameters": PARAMETERS, "keepLastAtempt": True},
            'Unrecognized field "keepLastAtempt"',
        ),
        ({"parameters": PARAMETERS}, "A TOSCA template must be provided"),
        ({"template": " ", "parameters": PARAMETERS}, "Failed to parse template"),
        ({"template": "key: [unclosed", "parameters": PARAMETERS}, "Failed to parse template"),
        ({"template": "just text", "parameters": PARAMETERS}, "not a TOSCA document"),
        ({"template": TEMPLATE}, "Input <ssh_public_key> is required"),
        ({"template": TEMPLATE, "parameters": {"ssh_public_key": None}}, "ssh_public_key"),
        (
            {"template": TEMPLATE, "parameters": PARAMETERS, "timeoutMins": 0},
            "Overall timeout value, if provided, must be at least of 1 minute",
        ),
        (
            {
                "template": TEMPLATE,
                "parameters": PARAMETERS,
                "timeoutMins": 5,
                "providerTimeoutMins": 6,
            },
            "ProviderTimeout must be <= Timeout",
        ),
        (
            {"template": TEMPLATE, "parameters": PARAMETERS, "maxProvidersRetry": 0},
            "maxProvidersRetry",
        ),
        ({"template": TEMPLATE, "parameters": PARAMETERS, "callback": "ftp://x"}, "Callback"),
        ({"template": TEMPLATE, "parameters": ["not", "a", "map"]}, "parameters"),
    ],
)
def test_the_emulator_refuses_invalid_create_bodies_with_400(http, body, words):
    answer = create(http, **body)
    assert answer.status_code == 400
    assert answer.json["code"] == 400 and answer.json["title"] == "Bad Request"
    assert words in answer.json["message"]


def test_the_emulator_accepts_a_full_valid_request_with_201(http):
    answer = create(
        http,
        template=TEMPLATE,
        parameters=PARAMETERS,
        callback="https://p.test/cb",
        timeoutMins=60,
        providerTimeoutMins=30,
        maxProvidersRetry=2,
        keepLastAttempt=False,
        userGroup="physics",
    )
    assert answer.status_code == 201
    assert answer.json["userGroup"] == "physics"
    assert answer.json["creationTime"].endswith("+0000") and len(answer.json["creationTime"]) == 21


def test_the_emulator_refuses_a_group_the_token_is_not_in(http):
    answer = create(http, template=TEMPLATE, parameters=PARAMETERS, userGroup="chemistry")
    assert answer.status_code == 403


@pytest.mark.parametrize("header", [None, "Bearer ", "Bearer wrong", "Basic dG9rZW4="])
def test_the_emulator_needs_a_valid_bearer_token(http, header):
    answer = http.get("/deployments", headers={"Authorization": header} if header else {})
    assert answer.status_code == 401
    assert set(answer.json) == {"code", "title", "message"}


def test_only_the_owner_may_delete_update_reset_or_read_the_log(http):
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    for method, path in [
        ("delete", ""),
        ("put", ""),
        ("patch", ""),
        ("get", "/log"),
        ("get", "/extrainfo"),
    ]:
        answer = getattr(http, method)(
            f"/deployments/{uuid}{path}",
            headers=BOB_HEADERS,
            json={"template": TEMPLATE, "parameters": PARAMETERS},
        )
        assert answer.status_code == 403, (method, path)


def test_updates_are_accepted_only_from_a_complete_or_failed_update_state(http):
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    body = {"template": TEMPLATE, "parameters": {"num_cpus": 4}}

    early = http.put(f"/deployments/{uuid}", json=body, headers=ALICE_HEADERS)
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json["status"] == (
        "CREATE_COMPLETE"
    )
    accepted = http.put(f"/deployments/{uuid}", json=body, headers=ALICE_HEADERS)

    assert early.status_code == 409 and "Retry-After" not in early.headers
    assert accepted.status_code == 202 and accepted.data == b""
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json["status"] == (
        "UPDATE_COMPLETE"
    )


def test_only_a_delete_under_way_can_be_reset_and_only_to_delete_failed(http, emulator_app):
    state = emulator_of(emulator_app)
    state.complete_after_polls = None
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    url = f"/deployments/{uuid}"
    state.set_status(uuid, "CREATE_COMPLETE")

    too_early = http.patch(url, json={"status": "DELETE_FAILED"}, headers=ALICE_HEADERS)
    assert http.delete(url, headers=ALICE_HEADERS).status_code == 204
    unknown = http.patch(url, json={"status": "STUCK"}, headers=ALICE_HEADERS)
    absent = http.patch(url, json={}, headers=ALICE_HEADERS)
    wrong = http.patch(url, json={"status": "CREATE_COMPLETE"}, headers=ALICE_HEADERS)
    right = http.patch(url, json={"status": "DELETE_FAILED"}, headers=ALICE_HEADERS)
    again = http.patch(url, json={"status": "DELETE_FAILED"}, headers=ALICE_HEADERS)

    assert too_early.status_code == 409
    assert too_early.json["message"] == "Cannot reset a deployment in CREATE_COMPLETE state"
    # The status is read as an enum unchecked there: unknown or absent is a server error.
    assert (unknown.status_code, absent.status_code) == (500, 500)
    assert wrong.status_code == 400
    assert wrong.json["message"] == "Cannot reset deployment: illegal status CREATE_COMPLETE."
    assert (right.status_code, again.status_code) == (204, 409)
    assert http.get(url, headers=ALICE_HEADERS).json["status"] == "DELETE_FAILED"
    assert http.delete(f"{url}?force=true", headers=ALICE_HEADERS).status_code == 204


def test_deployments_of_another_issuer_are_unknown(emulator_app):
    emulator_of(emulator_app).tokens["token-far"] = Identity("alice-sub", "https://far.test/")
    http = emulator_app.test_client()
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    far = http.get(f"/deployments/{uuid}", headers={"Authorization": "Bearer token-far"})
    bob = http.get(f"/deployments/{uuid}", headers=BOB_HEADERS)
    assert (far.status_code, bob.status_code) == (404, 200)


def test_failing_creates_end_in_create_failed_with_a_reason(http, emulator_app):
    emulator_of(emulator_app).faults.fail_creates = True
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    answer = http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json
    assert answer["status"] == "CREATE_FAILED"
    assert "Emulated failure" in answer["statusReason"]


def test_deployments_also_complete_after_the_configured_seconds():
    app = create_emulator(
        static_tokens(TOKENS), complete_after_polls=99, complete_after_seconds=0.05
    )
    http = app.test_client()
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    time.sleep(0.06)
    listed = http.get("/deployments", headers=ALICE_HEADERS).json
    assert listed["content"][0]["uuid"] == uuid
    assert listed["content"][0]["status"] == "CREATE_COMPLETE"
    assert listed["page"] == {"size": 10, "totalElements": 1, "totalPages": 1, "number": 0}


def test_demo_tokens_are_refused_when_forged_or_signed_with_another_key():
    tokens = DemoTokens("portal-secret")
    token = tokens.issue(ALICE)
    assert tokens.verify(token) == ALICE
    assert DemoTokens("another-secret").verify(token) is None
    assert tokens.verify(token[:-2] + "xx") is None


def test_the_in_process_transport_reaches_the_emulator_and_can_be_switched_off(emulator_app):
    faults: Faults = emulator_of(emulator_app).faults
    session = requests.Session()
    session.mount("http://orchestrator.test", WSGITransport(emulator_app, faults))
    with OrchestratorClient("http://orchestrator.test", lambda: "token-alice", 2, session) as c:
        assert c.create_deployment(TEMPLATE, PARAMETERS)["status"] == "CREATE_IN_PROGRESS"
        assert len(c.list_deployments()) == 1
        faults.down = True
        with pytest.raises(OrchestratorUnavailable):
            c.list_deployments()


def test_configuration_and_info_answer_with_their_documented_keys(http):
    configuration = http.get("/configuration", headers=ALICE_HEADERS).json
    assert {"cpr_url", "slam_url", "cmdb_url", "im_url", "monitoring_url"} <= set(configuration)
    assert "version" in http.get("/info", headers=ALICE_HEADERS).json["build"]


def test_lists_are_sorted_newest_first_unless_asked_and_sizes_are_capped(http):
    uuids = [create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"] for _ in range(3)]

    def listed(**query):
        return http.get("/deployments", query_string=query, headers=ALICE_HEADERS)

    assert [d["uuid"] for d in listed().json["content"]] == uuids[::-1]
    assert [d["uuid"] for d in listed(sort="createdAt,asc").json["content"]] == uuids
    assert listed(size=5000).json["page"]["size"] == 2000
    assert listed(sort="colour,asc").status_code == 500  # Spring Data fails late
    assert listed(page="x").status_code == 400
    assert listed(page=7).json["content"] == []


def test_deleting_needs_a_valid_force_flag_and_conflicts_when_already_deleting(http):
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS)  # a site is chosen
    assert http.delete(f"/deployments/{uuid}?force=maybe", headers=ALICE_HEADERS).status_code == 400
    assert http.delete(f"/deployments/{uuid}?force=true", headers=ALICE_HEADERS).status_code == 204
    again = http.delete(f"/deployments/{uuid}", headers=ALICE_HEADERS)
    assert again.status_code == 409 and again.json["code"] == 409
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).status_code == 404


def test_set_status_drives_a_deployment_and_fills_in_what_the_status_implies(emulator_app):
    http = emulator_app.test_client()
    state = emulator_of(emulator_app)
    state.complete_after_polls = None
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json["status"] == (
        "CREATE_IN_PROGRESS"
    )
    state.set_status(uuid, "CREATE_COMPLETE")
    done = http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json
    assert done["outputs"]["node_ip"].startswith("203.0.113.")
    assert done["cloudProviderName"] and done["cloudProviderEndpoint"]["region"]
    state.set_status(uuid, "UNKNOWN", "The orchestrator lost track")
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).json["statusReason"] == (
        "The orchestrator lost track"
    )
    with pytest.raises(KeyError):
        state.set_status("no-such-uuid", "CREATE_COMPLETE")


def test_in_process_hangs_and_lost_answers_end_like_they_would_over_a_network(emulator_app):
    faults: Faults = emulator_of(emulator_app).faults
    session = requests.Session()
    session.mount("http://orchestrator.test", WSGITransport(emulator_app, faults))
    with OrchestratorClient("http://orchestrator.test", lambda: "token-alice", 2, session) as c:
        faults.update(lose_create_response="drop")
        with pytest.raises(OrchestratorUnavailable):
            c.create_deployment(TEMPLATE, PARAMETERS)
        assert len(emulator_of(emulator_app).store.every()) == 1
        faults.update(lose_create_response=False, hang=True)
        with pytest.raises(OrchestratorUnavailable):
            c.list_deployments()
        faults.clear()
        assert len(c.list_deployments()) == 1


@pytest.mark.parametrize(
    ("created_by", "status"),
    [
        ("me", 200),
        ("alice-sub@https://iam.test/", 200),
        ("bob-sub@https://iam.test/", 403),
        ("nobody", 400),
        ("a@b@c", 400),
    ],
)
def test_created_by_is_me_or_subject_at_issuer_and_others_are_for_admins(http, created_by, status):
    answer = http.get("/deployments", query_string={"createdBy": created_by}, headers=ALICE_HEADERS)
    assert answer.status_code == status


def test_a_body_not_sent_as_json_is_an_unsupported_media_type(http):
    answer = http.post(
        "/deployments", data="template: x", headers=ALICE_HEADERS, content_type="text/plain"
    )
    assert answer.status_code == 415
    assert answer.json["message"] == "Content type 'text/plain' not supported"
