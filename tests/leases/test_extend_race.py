"""Extends of one lease arriving at once, from several processes as several hosts or workers
would send them: one extend, one answer of success, one timeline entry."""

from datetime import timedelta

from app import create_app
from app.auth.models import User
from app.extensions import db
from app.leases.errors import ExtendRefused
from app.leases.operations import extend
from tests.processes import race

PROCESSES = 6


def _extend_at_once(config, instance, user_id, deployment_id, barrier, results):
    # A process of its own, as gunicorn would run: its own app, engine and connections.
    app = create_app(dict(config), instance_path=instance)
    with app.app_context():
        actor = db.session.get(User, user_id)
        barrier.wait(timeout=60)
        try:
            extend(actor, deployment_id)
            results.put("extended")
        except ExtendRefused as refused:
            results.put(refused.message)
        db.engine.dispose()


def test_extends_arriving_at_once_extend_once(emulated, leases, clock, tmp_path):
    # Extends may follow one another within the policy: only arriving together makes them one.
    leases.policy(default="1h", extend_step="1h", max_extends="10")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    before = leases.lease(deployment_id).ends_at

    answers = race(
        _extend_at_once,
        [(dict(emulated.app.config), str(tmp_path), ada, deployment_id)] * PROCESSES,
        parties=PROCESSES,
        outcomes=PROCESSES,
    )

    assert answers.count("extended") == 1, answers
    assert set(answers) - {"extended"} == {
        "This lease was extended a moment ago, by this or another request; it was not "
        "extended again."
    }
    lease = leases.lease(deployment_id)
    assert lease.ends_at - before == timedelta(hours=1) and lease.extends == 1
    assert [kind for kind, _source, _details in leases.events(deployment_id)].count(
        "lease-extended"
    ) == 1
    clock.move(seconds=30)  # a moment later, the next extend is one of its own
    with emulated.app.app_context():
        extend(db.session.get(User, ada), deployment_id)
    assert leases.lease(deployment_id).extends == 2
