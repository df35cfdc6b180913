"""The command-line client gives up on a portal that dribbles its answer at its deadline, and on
an answer past its cap, with the usual "could not reach" failure."""

import time

import pytest

from app.cli_client import api
from app.cli_client.api import Failed, Portal
from tests.fixtures.slow_server import slow_server


@pytest.mark.parametrize("behaviour", ["dribble", "endless"])
def test_rcp_ends_a_call_that_never_answers_in_full(monkeypatch, behaviour):
    monkeypatch.setattr(api, "TIMEOUT", (0.5, 0.5))
    monkeypatch.setattr(api, "MAX_ANSWER_BYTES", 1024 * 1024)
    with slow_server(behaviour) as server:
        started = time.monotonic()
        with pytest.raises(Failed) as failed:
            Portal(server.url, "a-token").get("/deployments")
    assert time.monotonic() - started < 10
    words = {"dribble": "no complete answer within 1 s", "endless": "larger than 1048576 bytes"}
    assert words[behaviour] in failed.value.message
