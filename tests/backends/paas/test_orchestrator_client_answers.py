"""The client against answers a faithful orchestrator (or what stands in front of it) can
give: pages that shift while being read, proxy 404s and redirects, concurrent-update
conflicts, inputs sent as null, overlong error texts."""

import json
import threading

import pytest
import requests
from werkzeug.serving import make_server
from werkzeug.wrappers import Response

from app.backends.paas.client import OrchestratorClient
from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.errors import (
    BadRequest,
    Conflict,
    DeploymentNotFound,
    OrchestratorError,
)
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE


class ShiftingSession(requests.Session):
    """Creates one more deployment right after the first page is read, as happens when
    someone launches while the portal lists."""

    def __init__(self, on_first_page):
        super().__init__()
        self.on_first_page, self.pages = on_first_page, 0

    def request(self, method, url, *args, **kwargs):
        answer = super().request(method, url, *args, **kwargs)
        if method == "GET" and url.endswith("/deployments"):
            self.pages += 1
            if self.pages == 1:
                self.on_first_page()
        return answer


def test_a_deployment_pushed_onto_the_next_page_is_listed_once(emulator, alice):
    made = [alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"] for _ in range(3)]
    session = ShiftingSession(lambda: alice.create_deployment(TEMPLATE, PARAMETERS))

    with OrchestratorClient(emulator.url, lambda: "token-alice", (2, 2), session) as client:
        listed = [item["uuid"] for item in client.list_deployments(size=2)]

    assert len(listed) == len(set(listed))
    assert set(made) <= set(listed)


def test_a_404_without_the_orchestrators_error_is_not_a_missing_deployment(emulator, alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
    emulator.faults.update(error_rate=1.0, error_status=404, error_body=False)

    with pytest.raises(OrchestratorError) as raised:
        alice.get_deployment(uuid)

    assert not isinstance(raised.value, DeploymentNotFound)
    assert "ORCHESTRATOR_URL" in raised.value.message


def test_a_404_in_the_gateway_shape_is_not_a_missing_deployment(emulator, alice):
    emulator.faults.update(error_rate=1.0, error_status=404, gateway_errors=True)
    with pytest.raises(OrchestratorError) as raised:
        alice.get_deployment("0a0a0a0a-0000-4000-8000-000000000000")
    assert not isinstance(raised.value, DeploymentNotFound)


@pytest.fixture
def redirector(emulator):
    """A server answering every call with a redirect to the emulator's same path."""

    def app(environ, start_response):
        target = emulator.url + environ["PATH_INFO"]
        return Response(status=302, headers={"Location": target})(environ, start_response)

    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_a_redirect_is_reported_not_followed_as_another_method(emulator, alice, redirector):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
    alice.get_deployment(uuid)

    with (
        OrchestratorClient(redirector, lambda: "token-alice", (2, 2)) as client,
        pytest.raises(OrchestratorError) as raised,
    ):
        client.delete_deployment(uuid)

    assert raised.value.status_code == 302 and "redirect" in raised.value.message
    # Followed, the DELETE would have become a GET and "succeeded" without deleting anything.
    assert not alice.get_deployment(uuid)["status"].startswith("DELETE")


def fake_answer(status: int, body: dict, headers=None) -> requests.Response:
    answer = requests.Response()
    answer.status_code, answer._content = status, json.dumps(body).encode()
    answer.headers.update({"Content-Type": "application/json", **(headers or {})})
    return answer


class AnswerOnce(requests.Session):
    """Answers the first call of ``method`` with ``answer``; the others go through."""

    def __init__(self, method, answer):
        super().__init__()
        self.method, self.answer, self.calls = method, answer, []

    def request(self, method, url, *args, **kwargs):
        self.calls.append(method)
        if method == self.method and self.calls.count(method) == 1:
            return self.answer
        return super().request(method, url, *args, **kwargs)


def conflict_once(method):
    """The orchestrator's concurrent-update 409 for the first call of ``method``."""
    body = {
        "code": 409,
        "title": "Conflict",
        "message": "The request couldn't be fulfilled "
        "because of a concurrent update. Please retry later",
    }
    return AnswerOnce(method, fake_answer(409, body, {"Retry-After": "0"}))


def test_a_concurrent_update_conflict_is_retried_once_for_a_delete(emulator, alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
    alice.get_deployment(uuid)
    session = conflict_once("DELETE")

    with OrchestratorClient(emulator.url, lambda: "token-alice", (2, 2), session) as client:
        client.delete_deployment(uuid)

    assert session.calls == ["DELETE", "DELETE"]
    assert alice.get_deployment(uuid)["status"] == "DELETE_IN_PROGRESS"


def test_a_create_is_never_sent_twice_even_after_a_concurrent_update_conflict(emulator):
    session = conflict_once("POST")
    with (
        OrchestratorClient(emulator.url, lambda: "token-alice", (2, 2), session) as client,
        pytest.raises(Conflict) as raised,
    ):
        client.create_deployment(TEMPLATE, PARAMETERS)
    assert raised.value.retry_after == 0 and session.calls == ["POST"]


def test_a_state_conflict_is_not_retried(emulator, alice):
    uuid = alice.create_deployment(TEMPLATE, PARAMETERS)["uuid"]
    alice.get_deployment(uuid)
    alice.delete_deployment(uuid)
    emulator_of(emulator.app).requests.clear()

    with pytest.raises(Conflict):
        alice.delete_deployment(uuid)
    deletes = [r for r in emulator_of(emulator.app).requests.entries() if r["method"] == "DELETE"]
    assert len(deletes) == 1


def test_inputs_sent_as_null_are_left_out_so_their_defaults_apply(emulator, alice):
    # num_cpus is required with a default: sent as null, the orchestrator refuses it.
    made = alice.create_deployment(TEMPLATE, {**PARAMETERS, "num_cpus": None, "note": None})

    stored = emulator_of(emulator.app).store.get(made["uuid"])
    assert stored.record["_request"]["parameters"] == PARAMETERS


def test_an_overlong_error_text_is_cut_for_people(emulator):
    # Spring's validation errors quote whole Java signatures.
    text = "Validation failed for argument [0] in public " + "x" * 5000
    session = AnswerOnce(
        "POST", fake_answer(400, {"code": 400, "title": "Bad Request", "message": text})
    )
    with (
        OrchestratorClient(emulator.url, lambda: "token-alice", (2, 2), session) as client,
        pytest.raises(BadRequest) as raised,
    ):
        client.create_deployment(TEMPLATE, PARAMETERS)
    assert raised.value.message.startswith("Validation failed")
    assert len(raised.value.message) <= 500


class LoopingSession(requests.Session):
    """Answers every listing with one page whose ``next`` link is that same page."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def request(self, method, url, *args, **kwargs):
        self.calls += 1
        href = "http://orchestrator.invalid/deployments?createdBy=me&page=0&size=100"
        return fake_answer(
            200,
            {
                "content": [{"uuid": "a"}],
                "links": [{"rel": "self", "href": href}, {"rel": "next", "href": href}],
            },
        )


def test_a_next_link_back_to_the_same_page_is_not_followed_forever():
    session = LoopingSession()
    with (
        OrchestratorClient("http://orchestrator.invalid", lambda: "t", (1, 1), session) as client,
        pytest.raises(OrchestratorError),
    ):
        client.list_deployments()
    assert session.calls <= 2
