"""An owner's account disabled: their deployments are neither deleted nor stopped; they run
until their lease ends, their co-owners are still warned and told, and the lease's end still
deletes them. Taken over before that, the new owner is told instead, and the portal still
deletes it at the lease's end (the orchestrator is asked in the portal's name either way)."""

from sqlalchemy import select

from app.auth.models import User
from app.auth.operations import set_active
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from app.launch import taking_over
from app.notifications.models import Notification
from app.quotas.holding import holds


def _disable(app, user_id: int) -> None:
    with app.app_context():
        set_active(db.session.get(User, user_id), False)
        db.session.commit()


def _told(app, deployment_id: int) -> list[tuple[str, str]]:
    with app.app_context():
        rows = db.session.execute(
            select(User.username, Notification.kind)
            .join(User, User.id == Notification.user_id)
            .where(Notification.deployment_id == deployment_id)
            .order_by(Notification.id)
        )
        return [(name, kind) for name, kind in rows if kind.startswith("lease")]


def _shared(emulated, leases, clock):
    leases.policy(default="3h", warn="1h", grace="30m")
    olga, carla = emulated.user("olga"), emulated.user("carla")
    deployment_id = leases.launch(olga)
    leases.ready(deployment_id)
    with emulated.app.app_context():
        owner = db.session.get(User, olga)
        sharing.share(owner, db.session.get(Deployment, deployment_id), "user", "carla", "co-owner")
    return olga, carla, deployment_id


def test_a_disabled_owners_deployment_runs_to_its_leases_end_and_co_owners_are_told(
    emulated, leases, clock
):
    olga, _carla, deployment_id = _shared(emulated, leases, clock)
    _disable(emulated.app, olga)
    emulated.sync()
    row = emulated.row(deployment_id)
    assert row.status == "ready" and not row.deleted
    assert [r for r in emulated.emulator.requests() if r["method"] == "DELETE"] == []
    with emulated.app.app_context():
        assert holds(db.session.get(Deployment, deployment_id))

    clock.move(minutes=121)  # 59 minutes left: the warning
    assert leases.expire().warned == 1
    clock.move(minutes=60)
    assert leases.expire().expired == 1
    clock.move(minutes=31)
    assert leases.expire().deleted == 1
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 1 and deletes[0]["path"].endswith(row.uuid)
    assert ("carla", "lease-warning") in _told(emulated.app, deployment_id)
    assert ("carla", "lease-expired") in _told(emulated.app, deployment_id)


def test_taken_over_it_is_the_new_owners_to_be_warned_of_and_still_deleted_at_its_end(
    emulated, leases, clock
):
    olga, carla, deployment_id = _shared(emulated, leases, clock)
    _disable(emulated.app, olga)
    with emulated.app.app_context():
        taking_over.take_over(db.session.get(User, carla), deployment_id)
    emulated.sync()
    assert emulated.row(deployment_id).status == "ready"
    clock.move(minutes=121)
    assert leases.expire().warned == 1
    clock.move(minutes=60)
    assert leases.expire().expired == 1
    clock.move(minutes=31)
    assert leases.expire().deleted == 1
    row = emulated.row(deployment_id)
    assert row.user_id == carla and row.status == "deleting"
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 1 and deletes[0]["path"].endswith(row.uuid)
    told = _told(emulated.app, deployment_id)
    assert ("carla", "lease-warning") in told and ("olga", "lease-warning") not in told
