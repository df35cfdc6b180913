"""A host's budgets passes for the warnings race: its own apps, each pass in a thread, all
starting at one barrier, once at each of the moments given."""

import threading

from app import create_app
from app.extensions import db
from app.quotas.budget_warnings import warn_once


def run(config, instance, apps, threads_per_app, moments, barrier, results) -> None:
    """``apps`` app instances with ``threads_per_app`` threads each, every thread running a
    budgets pass at each of ``moments`` (None: the real clock's now), every pass of one moment
    with the others at once and after all of the moment before; the warnings each thread's
    passes gave, a list per thread (or error text), go to ``results``."""
    outcomes = []

    def passes(app) -> None:
        given = []
        with app.app_context():
            try:
                for moment in moments:
                    barrier.wait(timeout=60)
                    given.append(warn_once(moment).given)
                    db.session.remove()
                outcomes.append(given)
            except Exception as error:  # reported to the test, which fails on it
                outcomes.append(f"error: {error!r}")
                barrier.abort()  # the other threads stop waiting for this one
            finally:
                db.session.remove()

    instances = [create_app(dict(config), instance_path=instance) for _ in range(apps)]
    workers = [
        threading.Thread(target=passes, args=(app,))
        for app in instances
        for _ in range(threads_per_app)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for app in instances:
        with app.app_context():
            db.engine.dispose()
    for outcome in outcomes:
        results.put(outcome)
