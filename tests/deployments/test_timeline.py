"""The timeline records each status change once, even when two processes learn it together."""

from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.timeline import change_status
from app.extensions import db


def _events(app, deployment_id):
    with app.app_context():
        return [
            (e.from_status, e.to_status, e.source)
            for e in db.session.scalars(
                db.select(DeploymentEvent)
                .where(DeploymentEvent.deployment_id == deployment_id)
                .order_by(DeploymentEvent.id)
            )
        ]


def test_a_change_already_recorded_elsewhere_is_not_recorded_again(app, people, make_deployment):
    deployment_id = make_deployment(people.create("ada"), status="creating")

    with app.app_context():
        # This process read the row before the other one (the callback) recorded the change.
        seen = db.session.get(Deployment, deployment_id)
        assert seen.status == "creating"
        with app.app_context():
            other = db.session.get(Deployment, deployment_id)
            assert change_status(other, "ready", source="callback")
            db.session.commit()
        changed = change_status(seen, "ready", source="sync")
        db.session.commit()

    assert changed is False
    assert _events(app, deployment_id) == [("creating", "ready", "callback")]


def test_a_later_change_from_a_stale_read_starts_from_the_status_stored(
    app, people, make_deployment
):
    deployment_id = make_deployment(people.create("ada"), status="creating")

    with app.app_context():
        seen = db.session.get(Deployment, deployment_id)
        with app.app_context():
            other = db.session.get(Deployment, deployment_id)
            change_status(other, "ready", source="callback")
            db.session.commit()
        changed = change_status(seen, "deleting", source="sync")
        db.session.commit()

    assert changed is True
    assert _events(app, deployment_id) == [
        ("creating", "ready", "callback"),
        ("ready", "deleting", "sync"),
    ]
