"""A worker process for the concurrent-save test: its own app, saving revisions at a barrier."""

import os
import threading

from app import create_app
from app.catalogue import operations
from app.extensions import db


def run(config: dict, instance: str, slug: str, text: str, threads: int, barrier, results):
    """Save ``threads`` revisions of ``slug`` at once (each waits at ``barrier``); each
    outcome, a revision number or an error's text, goes to ``results``."""
    app = create_app(dict(config), instance_path=instance)
    outcomes = []

    def save(index: int) -> None:
        with app.app_context():
            barrier.wait(timeout=60)
            try:
                revision = operations.save_revision(
                    slug, text.replace("EDIT", f"edit {os.getpid()}-{index}"), "", f"admin-{index}"
                )
                outcomes.append(revision.number)
            except Exception as error:  # reported to the test, which fails on it
                outcomes.append(f"error: {error!r}")
            finally:
                db.session.remove()

    workers = [threading.Thread(target=save, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    with app.app_context():
        db.engine.dispose()
    for outcome in outcomes:
        results.put(outcome)
