"""The worker runs each background duty in a thread of its own: a duty whose pass hangs holds
up no other, a pass past its budget is told so, and the worker stops when told, the passes
under way finishing first."""

import threading

from app.extension_points import BACKGROUND_DUTIES
from app.worker import Duty, out_of_time, run_duties, run_pass


def _duty(name, run, budget=60.0):
    return Duty(name, run, every="TEST_DUTY_SECONDS", budget=lambda config: budget, claims="")


def test_a_duty_whose_pass_hangs_holds_up_no_other_and_the_worker_stops_when_told(make_app):
    app = make_app(TEST_DUTY_SECONDS=0.01)
    stuck, released, stop = threading.Event(), threading.Event(), threading.Event()
    passes, enough = [], threading.Event()

    def hang():
        stuck.set()
        released.wait(60)  # an IM delete under its lock, a source that never answers

    def admit():
        if stuck.is_set():
            passes.append(1)
            if len(passes) >= 3:
                enough.set()

    def work():
        with app.app_context():
            run_duties([_duty("hang", hang), _duty("lines", admit)], stop)

    worker = threading.Thread(target=work)
    worker.start()
    try:
        # Three passes of the other duty while the first is still inside its first one.
        assert enough.wait(30)
        assert not released.is_set() and worker.is_alive()
    finally:
        stop.set()
        released.set()
        worker.join(30)
    assert not worker.is_alive()


def test_a_pass_learns_that_its_budget_is_spent_and_so_does_no_more(make_app):
    app = make_app()
    seen = {}

    def run():
        seen["at once"] = out_of_time()
        return "done"

    with app.app_context():
        assert run_pass(_duty("spent", run, budget=0)) == "done"
        assert run_pass(_duty("fresh", lambda: out_of_time(), budget=60)) is False
    # Outside the worker a pass is never out of time.
    assert seen == {"at once": True} and out_of_time() is False


def test_a_failing_pass_is_rolled_back_and_the_worker_goes_on(make_app):
    app = make_app()

    def fail():
        raise RuntimeError("boom")

    with app.app_context():
        assert run_pass(_duty("failing", fail)) is None


def test_every_feature_declares_its_duty(make_app):
    app = make_app()
    names = [duty.name for duty in BACKGROUND_DUTIES.each(app)]
    assert sorted(names) == ["budgets", "capacity", "leases", "lines", "mail", "sync", "usage"]
