"""A capacity source that dribbles its answer, hangs or sends without end costs the refresh
pass one deadline at most: the failure is recorded in words and the other sources are read.
(The worker's other duties never wait for it: each runs in a thread of its own,
tests/test_worker.py.)"""

import time

import pytest
from sqlalchemy import select

from app.capacity import snapshot
from app.capacity.models import CapacityRead
from app.extensions import db
from app.worker import chosen, run_pass
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
        with app.app_context():
            started = time.monotonic()
            capacity = run_pass(*chosen(("capacity",)))
            took = time.monotonic() - started
            problems = db.session.scalars(select(CapacityRead.problem)).all()
            found = {free.site: free for free in snapshot.current()}
    assert server.calls == 1 and took < ENDED
    assert (capacity.read, capacity.failed) == (2, ["cluster-stats"])
    assert any(problem and _said(behaviour, problem) for problem in problems)
    # The registry, listed after the slow source, was read.
    assert found["CLOUD-VENETO"].source == "fedreg" and found["CLOUD-VENETO"].problem is None


def _said(behaviour: str, problem: str) -> bool:
    return WORDS[behaviour] in problem
