"""A worker process for the budget race: its own apps, launches deciding at a barrier."""

import threading

from app import create_app
from app.auth.models import User
from app.extensions import db
from app.launch import decision
from app.launch.constraints.hold import Claim
from app.leases import operations as lease_operations
from tests.quotas.conftest import charge, new_deployment


def run(config, instance, user_id, group, apps, threads_per_app, barrier, results) -> None:
    """``apps`` app instances with ``threads_per_app`` launches each of 2 cores, each taking the
    launch decision as the workflow does (under the quotas' locks, its lease chosen with it
    and committed); outcomes ("start", a hold's kind, or error text) go to ``results``."""
    outcomes = []

    def launch(app, index: int) -> None:
        with app.app_context():
            user = db.session.get(User, user_id)
            deployment = new_deployment(user_id, name=f"budget-{index}", group_name=group)
            deployment.charge = charge(cores=2)
            claim = Claim(user, group, deployment.charge, template_slug="vm")
            barrier.wait(timeout=60)
            try:
                decided = decision.take(claim, deployment, source="launch", reason="race")
                if decided.outcome == decision.START:
                    lease_operations.choose(deployment, None)  # commits, as the launch does
                    outcomes.append("start")
                else:
                    db.session.rollback()
                    outcomes.append(decided.kind)
            except Exception as error:  # reported to the test, which fails on it
                outcomes.append(f"error: {error!r}")
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
