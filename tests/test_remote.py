"""A remote read ends by its overall deadline and reads no more than its cap
(``app.remote``), whatever the server does: dribble its body or its headers, hang after the
headers, or send without end. Each server here is real, on loopback."""

import time

import pytest
import requests

from app import remote
from tests.fixtures.slow_server import slow_server

# The deadline asked for: short, so that each test costs about a second.
DEADLINE = 1.0
# An upper bound meaning "ended at its deadline, not at the server's pace" (the dribblers
# would go on for minutes); generous for a loaded machine.
ENDED = 10.0


def _read(url: str, *, timeout=(0.5, 5.0), deadline=DEADLINE, max_bytes=remote.DEFAULT_MAX_BYTES):
    with remote.session() as session:
        return remote.bounded(
            lambda **streaming: session.get(url, timeout=timeout, **streaming),
            deadline=deadline,
            max_bytes=max_bytes,
        )


@pytest.mark.parametrize("behaviour", ["dribble", "dribble-headers"])
def test_an_answer_that_dribbles_ends_at_the_deadline(app, behaviour):
    with slow_server(behaviour) as server:
        started = time.monotonic()
        with pytest.raises(remote.AnswerTooSlow) as slow:
            _read(server.url)
        took = time.monotonic() - started
    assert server.calls == 1
    assert DEADLINE <= took < ENDED
    with app.test_request_context():
        sentence = slow.value.describe("The orchestrator")
    assert sentence == "The orchestrator did not answer in full within 1 s."


def test_an_answer_that_hangs_after_its_headers_ends_by_the_deadline(app):
    # The read timeout (5 s) is longer than the deadline: the deadline ends the call.
    with slow_server("hang") as server:
        started = time.monotonic()
        with pytest.raises(remote.AnswerTooSlow):
            _read(server.url)
    assert time.monotonic() - started < ENDED


def test_an_endless_answer_is_given_up_at_the_cap(app):
    with slow_server("endless") as server, pytest.raises(remote.AnswerTooLarge) as large:
        _read(server.url, deadline=30, max_bytes=1024 * 1024)
    with app.test_request_context():
        sentence = large.value.describe("The orchestrator")
    assert sentence == "The orchestrator sent an answer larger than 1 MB; it was not read."


def test_an_answer_announced_larger_than_the_cap_is_not_read(app):
    with (
        slow_server("oversize", size=2 * 1024 * 1024) as server,
        pytest.raises(remote.AnswerTooLarge),
    ):
        _read(server.url, max_bytes=1024 * 1024)


def test_an_answer_within_the_cap_and_the_deadline_is_read_whole(app):
    with slow_server("oversize", size=300_000) as server:
        answer = _read(server.url, max_bytes=1024 * 1024)
    assert answer.status_code == 200 and len(answer.content) == 300_000


def test_the_connection_of_a_call_ended_at_its_deadline_is_not_used_again(app):
    with slow_server("dribble") as server, remote.session() as session:
        for _ in range(2):
            with pytest.raises(remote.AnswerTooSlow):
                remote.bounded(
                    lambda **streaming: session.get(server.url, timeout=5, **streaming),
                    deadline=0.5,
                )
    assert server.calls == 2


def test_a_slow_answer_is_a_timeout_for_callers_that_know_only_requests():
    assert issubclass(remote.AnswerTooSlow, requests.Timeout)
    assert issubclass(remote.AnswerTooLarge, requests.RequestException)
    assert remote.deadline_of((5, 30)) == 35 and remote.deadline_of(10) == 20
