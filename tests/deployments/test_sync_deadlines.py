"""An orchestrator that dribbles its answers costs the sync duty one deadline per call, not
forever: the pass ends and the deployment's check counts as failed. (The worker's other duties
never wait for it: each runs in a thread of its own, tests/test_worker.py.)"""

import threading

from app.worker import chosen, run_pass
from tests.fixtures.slow_server import slow_server

# Generous for a loaded machine; a worker without deadlines is held far longer (the server
# gives up on each answer only after GIVE_UP seconds).
ENDED = 15.0


def test_a_dribbling_orchestrator_holds_the_sync_duty_one_deadline_per_call(emulated):
    ada = emulated.user("ada")
    emulated.launch(ada)
    app = emulated.app
    with slow_server("dribble") as server:
        # (connect, read) of (0.5, 0.5): each answer has 1 s in all.
        app.config.update(ORCHESTRATOR_URL=server.url, ORCHESTRATOR_TIMEOUT=(0.5, 0.5))
        outcome = {}

        def work():
            with app.app_context():
                (duty,) = chosen(("sync",))
                outcome["pass"] = run_pass(duty)

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(ENDED)
        calls = server.calls
    assert not worker.is_alive() and outcome["pass"] is not None
    # The worker did ask the orchestrator (the pass was not skipped) and was let go.
    assert calls >= 1
