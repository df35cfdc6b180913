"""Faults injected into the emulator served over HTTP, and how it holds up when called from
several threads at once, seen through the portal's own client."""

import threading
import time

import pytest
import requests

from app.backends.paas.errors import Forbidden, OrchestratorUnavailable
from tests.backends.paas.emulator.test_server import (
    ISSUER,
    client,
    create,
    wait_for,
    with_people,
)


@pytest.fixture
def emu(orchestrator_emulator):
    return with_people(orchestrator_emulator)


@pytest.fixture
def receiver(callback_receiver):
    return callback_receiver


# --- faults -----------------------------------------------------------------------------------


def test_a_lost_create_response_drops_the_connection_but_keeps_the_deployment(emu):
    emu.set_faults(lose_create_response="drop")
    with pytest.raises(OrchestratorUnavailable):
        create(emu)
    [kept] = emu.deployments()
    assert kept["status"] == "CREATE_IN_PROGRESS"
    assert kept["createdBy"] == {"subject": "ada-sub", "issuer": ISSUER}


def test_a_lost_create_response_can_be_a_gateway_timeout(emu):
    emu.set_faults(lose_create_response="504")
    with pytest.raises(OrchestratorUnavailable) as raised:
        create(emu)
    assert raised.value.status_code == 504
    assert len(emu.deployments()) == 1


def test_a_refused_create_is_not_stored_even_when_responses_are_lost(emu):
    emu.set_faults(lose_create_response="drop")
    with pytest.raises(Forbidden):
        create(emu, group="chemistry")
    assert emu.deployments() == []


def test_errors_can_come_with_or_without_a_body_and_only_on_chosen_paths(emu):
    uuid = create(emu)["uuid"]
    emu.set_faults(error_rate=1.0, error_status=503, error_body=False, paths=["GET /deployments"])
    with client(emu) as ada:
        with pytest.raises(OrchestratorUnavailable) as raised:
            ada.list_deployments()
        assert raised.value.status_code == 503
        assert ada.get_deployment(uuid)["uuid"] == uuid  # another path: untouched
    plain = requests.get(
        f"{emu.url}/deployments", timeout=2, headers={"Authorization": "Bearer tok-ada"}
    )
    assert (plain.status_code, plain.content) == (503, b"")

    emu.set_faults(error_rate=1.0, error_status=500)
    with client(emu) as ada, pytest.raises(OrchestratorUnavailable) as raised:
        ada.get_deployment(uuid)
    assert "Injected failure" in raised.value.message


def test_gateway_errors_use_the_oauth_shape(emu):
    emu.set_faults(gateway_errors=True)
    answer = requests.get(f"{emu.url}/deployments", timeout=2)
    assert answer.json() == {
        "error": "unauthorized",
        "error_description": "Full authentication is required",
    }


def test_latency_beyond_the_read_timeout_makes_the_orchestrator_unavailable(emu):
    emu.set_faults(latency=0.5)
    with client(emu, timeout=(1, 0.2)) as ada, pytest.raises(OrchestratorUnavailable):
        ada.info()
    with client(emu, timeout=(1, 2)) as ada:
        assert ada.info()["build"]["version"] == "emulator"


def test_a_hang_holds_calls_until_the_fault_is_cleared(emu):
    emu.set_faults(hang=True)
    with client(emu, timeout=(1, 0.3)) as ada, pytest.raises(OrchestratorUnavailable):
        ada.info()

    answers = []
    waiting = threading.Thread(target=lambda: answers.append(client(emu, timeout=(1, 10)).info()))
    waiting.start()
    time.sleep(0.3)
    assert answers == []
    emu.clear_faults()
    waiting.join(5)
    assert answers and answers[0]["build"]["version"] == "emulator"


def test_fail_next_creates_fails_only_that_many(emu):
    emu.configure(complete_after_polls=1)
    emu.set_faults(fail_next_creates=1)
    first, second = create(emu)["uuid"], create(emu)["uuid"]
    with client(emu) as ada:
        failed, done = ada.get_deployment(first), ada.get_deployment(second)
    assert failed["status"] == "CREATE_FAILED" and "Emulated failure" in failed["statusReason"]
    assert done["status"] == "CREATE_COMPLETE"


def test_bad_fault_switches_are_refused_with_a_reason(emu):
    answer = requests.put(
        f"{emu.url}/__emulator__/faults",
        json={"error_rate": 2},
        timeout=2,
        headers={"X-Emulator-Secret": emu._secret},
    )
    assert answer.status_code == 400
    assert answer.json() == {"error": "error_rate must be a number from 0 to 1"}


# --- concurrency ---------------------------------------------------------------------------


def test_concurrent_deletes_of_one_deployment_give_one_204_and_409s(emu):
    uuid = create(emu)["uuid"]
    emu.set_status(uuid, "CREATE_COMPLETE")
    codes = []

    def delete():
        answer = requests.delete(
            f"{emu.url}/deployments/{uuid}", timeout=5, headers={"Authorization": "Bearer tok-ada"}
        )
        codes.append(answer.status_code)

    threads = [threading.Thread(target=delete) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(codes) == [204] + [409] * 5


def test_under_concurrent_polling_each_deployment_completes_and_calls_back_once(emu, receiver):
    emu.configure(complete_after_seconds=0.3)
    uuids = [create(emu, callback=receiver.url)["uuid"] for _ in range(12)]
    stop = threading.Event()

    def poll():
        with client(emu, timeout=(2, 5)) as ada:
            while not stop.is_set():
                for uuid in uuids:
                    ada.get_deployment(uuid)

    pollers = [threading.Thread(target=poll) for _ in range(4)]
    for poller in pollers:
        poller.start()
    wait_for(lambda: len(receiver.received) >= len(uuids), seconds=15)
    time.sleep(0.5)  # room for a duplicate to show up
    stop.set()
    for poller in pollers:
        poller.join(10)

    called_back = sorted(call["body"]["uuid"] for call in receiver.received)
    assert called_back == sorted(uuids)
    assert {call["body"]["status"] for call in receiver.received} == {"CREATE_COMPLETE"}
