"""A capacity source that dribbles its answer, hangs or sends without end costs the refresh
pass one deadline at most: the failure is recorded in words, the other sources are read, and
the worker's other duties run after it."""

import time

import pytest
from sqlalchemy import select

from app.capacity import snapshot
from app.capacity.models import CapacityRead
from app.extensions import db
from app.sync.passes import other_passes, register_pass
from tests.capacity.conftest import sources
from tests.fixtures.slow_server import slow_server

# The source's timeout: 0.5 s to connect and to read, so its whole answer has 1 s.
TIMEOUT = 0.5
ENDED = 10.0

SOURCE = "The cluster statistics of RECAS-BARI"
WORDS = {
    "dribble": f"{SOURCE} did not answer in full within 1 s.",
    "hang": f"{SOURCE} did not answer in time.",
    "endless": f"{SOURCE} sent an answer larger than 16 MB; it was not read.",
}


@pytest.mark.parametrize("behaviour", ["dribble", "hang", "endless"])
def test_a_source_that_never_answers_in_full_costs_the_worker_one_deadline(
    capacity_app, emulator, behaviour
):
    with slow_server(behaviour) as server:
        slow = {
            "kind": "cluster-stats",
            "url": f"{server.url}/papi/RECAS-BARI",
            "site": "RECAS-BARI",
            "timeout": TIMEOUT,
        }
        app = capacity_app(CAPACITY_SOURCES=[slow, *sources(emulator.url, "fedreg")])
        ran_after = []
        register_pass(app, "witness", lambda: ran_after.append(time.monotonic()))
        with app.app_context():
            started = time.monotonic()
            outcomes = other_passes()
            took = time.monotonic() - started
            problems = db.session.scalars(select(CapacityRead.problem)).all()
            found = {free.site: free for free in snapshot.current()}
    assert server.calls == 1 and took < ENDED
    capacity = outcomes["capacity"]
    assert (capacity.read, capacity.failed) == (2, ["cluster-stats"])
    assert any(problem and _said(behaviour, problem) for problem in problems)
    # The registry, listed after the slow source, was read; the duty after capacity ran.
    assert found["CLOUD-VENETO"].source == "fedreg" and found["CLOUD-VENETO"].problem is None
    assert len(ran_after) == 1


def _said(behaviour: str, problem: str) -> bool:
    return WORDS[behaviour] in problem
