"""A lease from launch to the portal's own delete: the clock starts when the deployment is
ready, warnings come at their distances, the end starts the grace period, and then the portal
deletes it through the orchestrator, recorded first, with its quota held until it is gone."""

from datetime import timedelta

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db
from app.leases.models import DONE, GRACE, RUNNING, WAITING
from app.quotas.holding import holds


def test_the_chosen_duration_starts_counting_when_the_deployment_is_ready(emulated, leases, clock):
    leases.policy(default="8h", max_initial="3d", cap="14d", reason="GPU time")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada, duration=2 * 60)
    assert leases.lease(deployment_id).state == WAITING

    clock.move(hours=5)  # creation takes long: none of it counts
    leases.ready(deployment_id)

    lease = leases.lease(deployment_id)
    assert lease.state == RUNNING and lease.minutes == 120
    assert 119 <= (lease.ends_at - lease.started_at).total_seconds() / 60 <= 120
    [(kind, source, details)] = leases.events(deployment_id)
    assert kind == "lease-chosen" and source == "sync"
    assert details["ends_at"] == lease.ends_at.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_no_policy_means_no_expiry(emulated, leases, clock):
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    clock.move(days=400)

    assert leases.lease(deployment_id) is None
    assert leases.expire().acted == 0
    assert emulated.row(deployment_id).status == "ready"


def test_warnings_come_once_each_then_the_grace_period_then_the_portals_delete(
    emulated, leases, clock
):
    leases.policy(default="3h", warn="2h,1h", grace="30m")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)

    assert leases.expire().acted == 0
    clock.move(minutes=61)  # 1 h 59 min left: the 2 h warning
    assert leases.expire().warned == 1
    assert leases.expire().acted == 0  # not twice
    clock.move(minutes=60)  # 59 min left: the 1 h warning
    assert leases.expire().warned == 1
    clock.move(minutes=60)  # ended
    result = leases.expire()
    assert result.expired == 1 and result.deleted == 0
    lease = leases.lease(deployment_id)
    assert lease.state == GRACE
    with emulated.app.app_context():
        assert holds(db.session.get(Deployment, deployment_id))
    clock.move(minutes=31)  # grace over
    assert leases.expire().deleted == 1

    row = emulated.row(deployment_id)
    assert row.status == "deleting" and not row.deleted
    with emulated.app.app_context():
        assert holds(db.session.get(Deployment, deployment_id))  # until really gone
    kinds = [(kind, source, details) for kind, source, details in leases.events(deployment_id)]
    assert [k for k, _s, _d in kinds] == [
        "lease-chosen",
        "lease-warned",
        "lease-warned",
        "lease-expired",
        "lease-deleted",
    ]
    assert [d["before_minutes"] for k, _s, d in kinds if k == "lease-warned"] == [120, 60]
    assert all(source == "portal" for _k, source, _d in kinds[1:])
    deleted = row.events[-1]
    assert (deleted.kind, deleted.to_status, deleted.source) == (
        "lease-deleted",
        "deleting",
        "portal",
    )
    assert deleted.reason == "Deleted by the portal: the lease expired."
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 1 and deletes[0]["path"].endswith(row.uuid)

    emulated.emulator.set_status(row.uuid, "DELETE_COMPLETE")
    emulated.sync()
    row = emulated.row(deployment_id)
    assert row.deleted and row.status == "deleted"
    with emulated.app.app_context():
        assert not holds(db.session.get(Deployment, deployment_id))
    assert leases.lease(deployment_id).state == DONE
    assert leases.expire().acted == 0


def test_a_late_pass_gives_the_closest_warning_only(emulated, leases, clock):
    leases.policy(default="3h", warn="2h,1h")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    clock.move(minutes=150)

    assert leases.expire().warned == 1
    [warned] = [d for k, _s, d in leases.events(deployment_id) if k == "lease-warned"]
    assert warned["before_minutes"] == 60


def test_deployments_still_being_created_never_expire(emulated, leases, clock):
    leases.policy(default="1h", grace="0m")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    clock.move(days=30)

    assert leases.expire().acted == 0
    assert leases.lease(deployment_id).state == WAITING
    assert [r for r in emulated.emulator.requests() if r["method"] == "DELETE"] == []


def test_a_failed_creation_is_removed_after_the_failed_cleanup_time(emulated, leases, clock):
    leases.policy(failed_cleanup="3d")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    uuid = emulated.row(deployment_id).uuid
    emulated.emulator.set_status(uuid, "CREATE_FAILED", reason="No site had room.")
    emulated.sync()
    assert emulated.row(deployment_id).status == "failed"

    clock.move(days=2)
    assert leases.expire().acted == 0
    clock.move(days=1, minutes=1)
    assert leases.expire().cleaned == 1

    [(kind, source, details)] = leases.events(deployment_id)
    assert kind == "failed-cleanup" and source == "portal" and details["failed_at"]
    assert emulated.row(deployment_id).status == "deleting"


def test_a_refused_delete_at_expiry_is_shown_and_tried_again(emulated, leases, clock):
    leases.policy(default="1h", grace="0m")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    emulated.emulator.set_faults(error_rate=1.0, paths=["DELETE /deployments/*"])
    clock.move(minutes=61)
    leases.expire()  # ends
    result = leases.expire()  # grace of nothing: the delete

    assert result.delete_failed == 1
    row = emulated.row(deployment_id)
    assert row.status == "delete-failed" and row.status_reason
    assert leases.lease(deployment_id).problem
    from app.leases.stuck import stuck_deployments

    with emulated.app.app_context():
        assert [d.id for d, _p in stuck_deployments()] == [deployment_id]

    emulated.emulator.clear_faults()
    assert leases.expire().acted == 0  # not before the retry time
    clock.move(minutes=16)
    assert leases.expire().deleted == 1
    assert emulated.row(deployment_id).events[-1].kind != "lease-deleted"  # recorded once


def test_a_deployment_deleted_by_its_owner_is_not_warned(emulated, leases, clock):
    from app.auth.models import User
    from app.deployments import operations

    leases.policy(default="2h", warn="1h")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    with emulated.app.app_context():
        operations.delete(db.session.get(User, ada), db.session.get(Deployment, deployment_id))
    clock.move(minutes=90)

    assert leases.expire().acted == 0
    assert leases.lease(deployment_id).state == DONE


def test_an_adopted_deployment_gets_the_default_from_its_adoption(emulated, leases, clock):
    from sqlalchemy import select

    from app.backends.paas.client import OrchestratorClient
    from tests.deployments.conftest import TEMPLATE

    leases.policy(default="4h")
    grace = emulated.oidc_user("grace")
    with OrchestratorClient(emulated.emulator.url, lambda: "tok-grace", (2, 5)) as client:
        made = client.create_deployment(
            TEMPLATE, {"jupyter_password": "x" * 12}, user_group="physics"
        )
    emulated.emulator.set_status(made["uuid"], "CREATE_COMPLETE")
    clock.move(minutes=30)  # found after it was made: counted from the adoption

    emulated.sync()

    with emulated.app.app_context():
        row = db.session.scalar(select(Deployment).where(Deployment.user_id == grace))
        assert row.adopted and row.status == "ready"
        deployment_id = row.id
    lease = leases.lease(deployment_id)
    assert lease.state == RUNNING and lease.minutes == 240
    assert lease.ends_at - lease.started_at == timedelta(hours=4)
    assert abs((utcnow() - lease.started_at).total_seconds()) < 60  # the moved clock: adoption
    [(kind, source, _details)] = leases.events(deployment_id)
    assert (kind, source) == ("lease-chosen", "sync")


def test_a_policy_tightened_while_the_form_was_open_shortens_the_choice(emulated, leases):
    leases.policy(default="1d", max_initial="3d")
    ada = emulated.user("ada")
    leases.policy(max_initial="1d", reason="tightened")

    deployment_id = leases.launch(ada, duration=3 * 24 * 60)

    assert leases.lease(deployment_id).minutes == 24 * 60
    assert emulated.row(deployment_id).status == "creating"  # submitted all the same
