"""A worker process for the concurrency tests: its own apps, racing launches at a barrier."""

import threading

from app import create_app
from app.auth.models import User
from app.extensions import db
from app.quotas.errors import QuotaExceeded
from app.quotas.operations import reserve
from tests.quotas.conftest import charge, new_deployment


def run(
    config: dict,
    instance: str,
    user_id: int,
    group,
    gpus_each: int,
    apps: int,
    threads_per_app: int,
    barrier,
    results,
) -> None:
    """Start ``apps`` app instances with ``threads_per_app`` launches each; every launch
    waits at ``barrier`` then reserves; outcomes ("admitted"/"refused"/error text) go to
    ``results``."""
    outcomes = []

    def launch(app, index: int) -> None:
        with app.app_context():
            user = db.session.get(User, user_id)
            deployment = new_deployment(user_id, name=f"race-{index}", group_name=group)
            barrier.wait(timeout=60)
            try:
                reserve(user, group, charge(gpus=gpus_each, cores=1), deployment)
                db.session.commit()  # as the launch does: the commit releases the locks
            except QuotaExceeded:
                outcomes.append("refused")
            except Exception as error:  # reported to the test, which fails on it
                outcomes.append(f"error: {error!r}")
            else:
                outcomes.append("admitted")
            finally:
                db.session.remove()

    instances = [create_app(dict(config), instance_path=instance) for _ in range(apps)]
    workers = [
        threading.Thread(target=launch, args=(app, i * threads_per_app + j))
        for i, app in enumerate(instances)
        for j in range(threads_per_app)
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
