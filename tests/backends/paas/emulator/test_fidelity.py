"""The emulator answers as the orchestrator's controllers and services do: which check wins
when several fail, what a delete before brokering does, which 409 says "retry", what a
callback announces, and how a page and a deployment look."""

import time

import pytest

from app.backends.paas.emulator.core import create_emulator, emulator_of, static_tokens
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE, TOKENS

ALICE_HEADERS = {"Authorization": "Bearer token-alice"}


@pytest.fixture
def emulator_app():
    return create_emulator(static_tokens(TOKENS), complete_after_polls=None)


@pytest.fixture
def http(emulator_app):
    return emulator_app.test_client()


def create(http, headers=ALICE_HEADERS, **body):
    return http.post("/deployments", json=body, headers=headers)


def test_an_input_sent_as_null_is_missing_even_when_it_has_a_default(http):
    # num_cpus has a default; the orchestrator looks the value up before the default.
    answer = create(http, template=TEMPLATE, parameters={**PARAMETERS, "num_cpus": None})
    assert answer.status_code == 400
    assert answer.json["message"] == (
        "Input <num_cpus> is required and is not present in the user's input list, nor has a "
        "default value"
    )


def test_optional_fields_sent_as_null_count_as_absent(http):
    answer = create(
        http,
        template=TEMPLATE,
        parameters=PARAMETERS,
        keepLastAttempt=None,
        userGroup=None,
        callback=None,
    )
    assert answer.status_code == 201


def test_a_new_deployment_shows_empty_outputs(http):
    made = create(http, template=TEMPLATE, parameters=PARAMETERS).json
    assert made["outputs"] == {}


def test_the_group_is_checked_before_the_template(emulator_app):
    http = emulator_app.test_client()
    answer = create(
        http,
        headers={"Authorization": "Bearer token-alice"},
        template=TEMPLATE,
        parameters={},
        userGroup="chemistry",
    )
    assert answer.status_code == 403


def test_a_state_conflict_wins_over_a_bad_template_on_update(http, emulator_app):
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    answer = http.put(
        f"/deployments/{uuid}", json={"template": "not: tosca"}, headers=ALICE_HEADERS
    )
    assert answer.status_code == 409
    assert "Retry-After" not in answer.headers


def test_an_unreadable_update_body_is_refused_before_looking_the_deployment_up(http):
    answer = http.put("/deployments/no-such-uuid", json={"parameters": {}}, headers=ALICE_HEADERS)
    assert answer.status_code == 400


def test_deleting_before_a_site_is_chosen_removes_the_deployment_at_once(http, emulator_app):
    state = emulator_of(emulator_app)
    uuid = create(
        http, template=TEMPLATE, parameters=PARAMETERS, callback="http://127.0.0.1:9/cb"
    ).json["uuid"]

    assert http.delete(f"/deployments/{uuid}", headers=ALICE_HEADERS).status_code == 204
    assert http.get(f"/deployments/{uuid}", headers=ALICE_HEADERS).status_code == 404
    time.sleep(0.2)
    assert state.callbacks.sent() == []


def test_a_completed_delete_is_not_called_back(http, emulator_app):
    state = emulator_of(emulator_app)
    uuid = create(
        http, template=TEMPLATE, parameters=PARAMETERS, callback="http://127.0.0.1:9/cb"
    ).json["uuid"]
    state.set_status(uuid, "CREATE_COMPLETE")
    assert http.delete(f"/deployments/{uuid}", headers=ALICE_HEADERS).status_code == 204
    state.set_status(uuid, "DELETE_COMPLETE")

    deadline = time.monotonic() + 5
    while len(state.callbacks.sent()) < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    assert [sent["status"] for sent in state.callbacks.sent()] == ["CREATE_COMPLETE"]


def test_a_single_page_has_no_first_and_last_links(http):
    create(http, template=TEMPLATE, parameters=PARAMETERS)
    page = http.get("/deployments", headers=ALICE_HEADERS).json
    assert [link["rel"] for link in page["links"]] == ["self"]


def test_actions_need_a_deployment_that_could_be_updated(http, emulator_app):
    uuid = create(http, template=TEMPLATE, parameters=PARAMETERS).json["uuid"]
    emulator_of(emulator_app).set_status(uuid, "CREATE_FAILED", "no site")
    emulator_of(emulator_app).set_status(uuid, "CREATE_COMPLETE")
    [vm] = http.get(f"/deployments/{uuid}/resources", headers=ALICE_HEADERS).json["content"]
    emulator_of(emulator_app).set_status(uuid, "UPDATE_IN_PROGRESS")

    answer = http.post(
        f"/deployments/{uuid}/resources/{vm['uuid']}/actions",
        json={"type": "stop"},
        headers=ALICE_HEADERS,
    )

    assert answer.status_code == 409
    assert answer.json["message"] == (
        "Cannot perform actions on deployment in UPDATE_IN_PROGRESS state"
    )


def test_an_injected_409_is_the_retryable_concurrent_update(http, emulator_app):
    emulator_of(emulator_app).faults.status = 409
    answer = http.get("/deployments", headers=ALICE_HEADERS)
    assert answer.status_code == 409 and answer.headers["Retry-After"] == "0"
    assert "concurrent update" in answer.json["message"]
