"""Both backends' clients end a call by its overall deadline and give up an answer past their
cap, each with its own named error and a sentence naming its service, against real loopback
servers that dribble, hang or never stop sending."""

import time

import pytest

from app.backends import base
from app.backends.im.client import ImClient, auth_lines
from app.backends.paas import errors as paas_errors
from app.backends.paas.client import OrchestratorClient
from tests.fixtures.slow_server import slow_server

# (connect, read) seconds: the whole answer must come within 1 s.
TIMEOUT = (0.5, 0.5)
ENDED = 10.0


def _orchestrator(url):
    return OrchestratorClient(url, lambda: "token", TIMEOUT).get_deployment("some-uuid")


def _im(url):
    lines = auth_lines(["id = dummy; type = Dummy"], username="portal", password="secret-pw")
    return ImClient(url, lines, TIMEOUT).state("some-infrastructure")


CALLERS = {
    "paas": (_orchestrator, "The orchestrator"),
    "im": (_im, "The Infrastructure Manager"),
}
UNANSWERED = {"paas": paas_errors.OrchestratorUnavailable, "im": base.Unavailable}
UNREADABLE = {"paas": paas_errors.OrchestratorError, "im": base.Unavailable}


@pytest.mark.parametrize("backend", ["paas", "im"])
@pytest.mark.parametrize("behaviour", ["dribble", "dribble-headers"])
def test_a_backend_that_dribbles_its_answer_is_unanswered_at_the_deadline(app, backend, behaviour):
    call, service = CALLERS[backend]
    with slow_server(behaviour) as server, app.test_request_context():
        started = time.monotonic()
        with pytest.raises(UNANSWERED[backend]) as raised:
            call(server.url)
        took = time.monotonic() - started
    assert type(raised.value) is UNANSWERED[backend]
    assert raised.value.message == f"{service} did not answer in full within 1 s."
    assert server.calls == 1 and took < ENDED


@pytest.mark.parametrize("backend", ["paas", "im"])
def test_a_backend_that_hangs_after_its_headers_is_unanswered(app, backend):
    call, _ = CALLERS[backend]
    with slow_server("hang") as server, app.test_request_context():
        started = time.monotonic()
        with pytest.raises(UNANSWERED[backend]):
            call(server.url)
    assert time.monotonic() - started < ENDED


@pytest.mark.parametrize("backend", ["paas", "im"])
@pytest.mark.parametrize("behaviour", ["endless", "oversize"])
def test_a_backend_answer_past_the_cap_is_unreadable_and_not_kept(app, backend, behaviour):
    call, service = CALLERS[backend]
    with (
        slow_server(behaviour, size=17 * 1024 * 1024) as server,
        app.test_request_context(),
        pytest.raises(UNREADABLE[backend]) as raised,
    ):
        call(server.url)
    assert type(raised.value) is UNREADABLE[backend]
    assert raised.value.message == f"{service} sent an answer larger than 16 MB; it was not read."
