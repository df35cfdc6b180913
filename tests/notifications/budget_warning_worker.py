"""A host's budgets passes for the warnings race: its own apps, each pass in a thread, all
starting at one barrier."""

import threading

from app import create_app
from app.extensions import db
from app.quotas.budget_warnings import warn_once


def run(config, instance, apps, threads_per_app, barrier, results) -> None:
    """``apps`` app instances with ``threads_per_app`` budgets passes each; the warnings each
    pass gave (or error text) go to ``results``."""
    outcomes = []

    def one_pass(app) -> None:
        with app.app_context():
            barrier.wait(timeout=60)
            try:
                outcomes.append(warn_once().given)
            except Exception as error:  # reported to the test, which fails on it
                outcomes.append(f"error: {error!r}")
            finally:
                db.session.remove()

    instances = [create_app(dict(config), instance_path=instance) for _ in range(apps)]
    workers = [
        threading.Thread(target=one_pass, args=(app,))
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
