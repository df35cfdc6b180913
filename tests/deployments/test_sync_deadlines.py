"""An orchestrator that dribbles its answers costs the sync worker one deadline per call, not
forever: the pass ends, the deployment's check counts as failed, and the worker's other
duties (leases, the line, capacity) run after it in the same turn."""

import threading
import time

from app.sync.passes import register_pass, sync_loop
from tests.fixtures.slow_server import slow_server

# Generous for a loaded machine; a worker without deadlines is held far longer (the server
# gives up on each answer only after GIVE_UP seconds).
ENDED = 15.0


def test_a_dribbling_orchestrator_holds_the_sync_worker_one_deadline_per_call(emulated):
    ada = emulated.user("ada")
    emulated.launch(ada)
    app = emulated.app
    stop = threading.Event()
    ran_after = []

    def witness():
        ran_after.append(time.monotonic())
        stop.set()

    register_pass(app, "witness", witness)
    with slow_server("dribble") as server:
        # (connect, read) of (0.5, 0.5): each answer has 1 s in all.
        app.config.update(ORCHESTRATOR_URL=server.url, ORCHESTRATOR_TIMEOUT=(0.5, 0.5))
        outcome = {}

        def work():
            with app.app_context():
                sync_loop(stop)
            outcome["ended"] = True

        worker = threading.Thread(target=work, daemon=True)
        started = time.monotonic()
        worker.start()
        worker.join(ENDED)
        stop.set()
        calls = server.calls
    assert outcome == {"ended": True} and ran_after
    assert ran_after[0] - started < ENDED
    # The worker did ask the orchestrator (the pass was not skipped) and was let go.
    assert calls >= 1
