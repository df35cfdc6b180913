"""An owner's account disabled: their deployments are neither deleted nor stopped; they run
until their lease ends, their co-owners are still warned and told, and the lease's end still
deletes them. Taken over before that, the new owner is told instead, and the portal still
deletes it at the lease's end: the orchestrator is asked in the name it was made in (the
portal's, or its maker's own token), and told in words when that login cannot be renewed."""

from sqlalchemy import select

from app.auth.models import User
from app.auth.operations import set_active
from app.auth.tokens import store_tokens
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


def test_made_with_its_owners_own_token_and_taken_over_it_is_deleted_at_its_end_with_it(
    emulated, leases, clock
):
    leases.policy(default="3h", warn="1h", grace="30m")
    olga, carla = emulated.oidc_user("olga"), emulated.oidc_user("carla")
    deployment_id = leases.launch(olga)
    leases.ready(deployment_id)
    with emulated.app.app_context():
        owner = db.session.get(User, olga)
        sharing.share(owner, db.session.get(Deployment, deployment_id), "user", "carla", "co-owner")
    _disable(emulated.app, olga)
    with emulated.app.app_context():
        taking_over.take_over(db.session.get(User, carla), deployment_id)
    clock.move(minutes=181)
    assert leases.expire().expired == 1
    clock.move(minutes=31)
    # Olga's token is renewed, or still good: the orchestrator deletes it for its maker only.
    with emulated.app.app_context():
        store_tokens(db.session.get(User, olga), "iam", {"access_token": "tok-olga"})
    assert leases.expire().deleted == 1
    row = emulated.row(deployment_id)
    assert (row.user_id, row.backend_holder_id, row.status) == (carla, olga, "deleting")
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 1 and deletes[0]["path"].endswith(row.uuid)


def test_its_makers_login_gone_the_delete_at_its_end_says_so(emulated, leases, clock):
    leases.policy(default="3h", warn="1h", grace="30m")
    olga, carla = emulated.oidc_user("olga"), emulated.user("carla")
    deployment_id = leases.launch(olga)
    leases.ready(deployment_id)
    with emulated.app.app_context():
        owner = db.session.get(User, olga)
        sharing.share(owner, db.session.get(Deployment, deployment_id), "user", "carla", "co-owner")
    _disable(emulated.app, olga)
    with emulated.app.app_context():
        taking_over.take_over(db.session.get(User, carla), deployment_id)
        # Her login expired, with nothing to renew it by.
        store_tokens(db.session.get(User, olga), "iam", {"access_token": "x", "expires_in": 0})
    clock.move(minutes=181)
    assert leases.expire().expired == 1
    clock.move(minutes=31)
    assert leases.expire().delete_failed == 1
    row = emulated.row(deployment_id)
    assert row.status == "delete-failed" and not row.deleted
    assert "in the name of olga, who made it there" in row.status_reason
    assert [r for r in emulated.emulator.requests() if r["method"] == "DELETE"] == []
