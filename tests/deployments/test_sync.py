"""The sync worker against the emulator over HTTP: it polls what is in progress once per pass,
adopts deployments made elsewhere, notices vanished ones, follows deletes, and backs off."""

from collections import Counter
from datetime import timedelta

from sqlalchemy import select

from app.auth.models import User
from app.backends.paas.client import OrchestratorClient
from app.clock import utcnow
from app.deployments import operations
from app.deployments.models import Deployment, DeploymentListing
from app.extensions import db
from tests.deployments.conftest import PARAMETERS, TEMPLATE


def calls_per_deployment(emulator) -> Counter:
    """GET /deployments/<uuid> calls by uuid, from the emulator's request log."""
    return Counter(
        r["path"].rsplit("/", 1)[1]
        for r in emulator.requests()
        if r["method"] == "GET" and r["path"].count("/") == 2
    )


def list_calls(emulator) -> int:
    return sum(
        1 for r in emulator.requests() if r["method"] == "GET" and r["path"] == "/deployments"
    )


def postpone_listings(app) -> None:
    """Make every identity's listing due only much later: passes then only poll."""
    with app.app_context():
        for listing in db.session.scalars(select(DeploymentListing)):
            listing.next_at = utcnow() + timedelta(hours=1)
        db.session.commit()


def test_a_pass_lists_then_brings_each_deployment_up_to_date_once(emulated):
    ada = emulated.user("ada")
    ids = [emulated.launch(ada, parameters={**PARAMETERS, "num_cpus": n}) for n in (1, 2, 3)]
    for held in emulated.emulator.deployments():
        emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")
    emulated.emulator.clear_requests()

    result = emulated.sync()

    assert [emulated.row(i).status for i in ids] == ["ready"] * 3
    assert result.listings == 1 and list_calls(emulated.emulator) == 1
    assert sum(calls_per_deployment(emulated.emulator).values()) == 0
    emulated.emulator.clear_requests()
    emulated.sync()
    assert emulated.emulator.requests() == []  # nothing in progress, no listing due


def test_polling_asks_about_each_deployment_in_progress_once_per_pass(emulated):
    ada = emulated.user("ada")
    ids = [emulated.launch(ada, parameters={**PARAMETERS, "num_cpus": n}) for n in (1, 2, 3, 4)]
    emulated.sync()  # the first listing, which also counts as their check in that pass
    postpone_listings(emulated.app)
    [first, *_] = emulated.emulator.deployments()
    emulated.emulator.set_status(first["uuid"], "CREATE_FAILED", reason="No site had room")
    emulated.emulator.clear_requests()

    result = emulated.sync()

    counts = calls_per_deployment(emulated.emulator)
    assert len(counts) == 4 and set(counts.values()) == {1}
    assert result.polled.checked == 4 and result.polled.changed == 1
    failed = [emulated.row(i) for i in ids if emulated.row(i).uuid == first["uuid"]][0]
    assert failed.status == "failed" and failed.status_reason == "No site had room"
    assert (failed.events[-1].source, failed.events[-1].reason) == ("sync", "No site had room")


def test_deployments_made_elsewhere_are_adopted_once_for_their_owner(emulated):
    grace = emulated.oidc_user("grace")
    with OrchestratorClient(emulated.emulator.url, lambda: "tok-grace", (2, 5)) as client:
        made = client.create_deployment(
            TEMPLATE, {"jupyter_password": "x" * 12}, user_group="physics"
        )

    first, second = emulated.sync(), emulated.sync()

    with emulated.app.app_context():
        rows = db.session.scalars(select(Deployment).where(Deployment.user_id == grace)).all()
        assert [(r.uuid, r.adopted, r.status) for r in rows] == [(made["uuid"], True, "creating")]
        assert rows[0].name.startswith("Made elsewhere") and rows[0].events[0].source == "sync"
    assert first.listed.adopted == 1 and second.listed.adopted == 0


def test_a_deployment_the_orchestrator_lost_is_marked_vanished(emulated):
    emulated.app.config.update(
        DEPLOYMENTS_SYNC_LIST_SECONDS=0, DEPLOYMENTS_SUBMITTING_STALE_SECONDS=0
    )
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")
    emulated.sync()
    emulated.emulator.set_status(held["uuid"], "DELETE_COMPLETE")  # gone without our asking

    result = emulated.sync()

    row = emulated.row(deployment_id)
    assert result.listed.vanished == 1
    assert row.status == "VANISHED" and not row.deleted
    assert row.events[-1].reason == "The orchestrator no longer knows this deployment."


def test_a_delete_is_followed_until_the_orchestrator_forgets_the_deployment(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")
    emulated.sync()

    with emulated.app.app_context():
        operations.delete(db.session.get(User, ada), db.session.get(Deployment, deployment_id))
    assert emulated.row(deployment_id).status == "deleting"
    emulated.emulator.set_status(held["uuid"], "DELETE_COMPLETE")
    emulated.sync()

    row = emulated.row(deployment_id)
    assert row.deleted and row.status == "deleted" and row.deleted_at is not None
    assert [(e.to_status, e.source) for e in row.events][-2:] == [
        ("deleting", "user"),
        ("deleted", "sync"),
    ]


def test_a_second_delete_meets_a_409_and_follows_the_first(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    with emulated.app.app_context():
        user, deployment = db.session.get(User, ada), db.session.get(Deployment, deployment_id)
        operations.delete(user, deployment)
        operations.delete(user, deployment)

    row = emulated.row(deployment_id)
    assert row.status == "deleting"
    assert row.events[-1].reason == "A delete was already under way."


def test_a_stuck_delete_can_be_reset_and_deleted_again(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")
    with emulated.app.app_context():
        user, deployment = db.session.get(User, ada), db.session.get(Deployment, deployment_id)
        operations.delete(user, deployment)

        operations.reset_delete(user, deployment)
        assert deployment.status == "delete-failed"
        operations.delete(user, deployment, force=True)

    assert emulated.row(deployment_id).status == "deleting"
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert deletes[-1]["query"].get("force") in ("true", ["true"])


def test_failed_checks_back_off(emulated):
    emulated.app.config["DEPLOYMENTS_SYNC_INTERVAL_SECONDS"] = 10
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    emulated.sync()
    postpone_listings(emulated.app)
    with emulated.app.app_context():
        db.session.get(Deployment, deployment_id).next_check_at = utcnow()
        db.session.commit()
    emulated.emulator.set_faults(error_rate=1.0, error_status=503, paths=["GET /deployments/*"])

    emulated.sync()
    emulated.emulator.clear_requests()
    emulated.sync()

    row = emulated.row(deployment_id)
    assert row.check_failures == 1 and row.status == "creating"
    assert row.next_check_at - row.checked_at >= timedelta(seconds=19)
    assert emulated.emulator.requests() == []  # not due again yet


def test_a_lost_answer_without_a_callback_address_is_matched_by_time_and_template(emulated):
    emulated.app.config["PORTAL_BASE_URL"] = ""  # launched outside a request: no callback
    ada = emulated.user("ada")
    emulated.emulator.set_faults(lose_create_response="drop", paths=["POST /deployments"])
    deployment_id = emulated.launch(ada)
    emulated.emulator.clear_faults()
    [held] = emulated.emulator.deployments()
    assert "callback" not in emulated.emulator.submitted(held["uuid"])

    result = emulated.sync()

    assert result.listed.confirmed == 1
    assert emulated.row(deployment_id).uuid == held["uuid"]
    assert emulated.row(deployment_id).events[-2].reason == (
        "Found at the orchestrator by its time and template."
    )


def test_a_launch_interrupted_before_its_answer_is_settled_without_submitting(emulated):
    emulated.app.config["DEPLOYMENTS_UNCONFIRMED_GRACE_SECONDS"] = 600
    ada = emulated.user("ada")
    with emulated.app.app_context():
        stuck = Deployment(
            user_id=ada,
            name="stuck",
            template_slug="test-notebook",
            template_name="Test notebook",
            template_text=TEMPLATE,
            parameters={},
            outputs={},
            charge={},
            request_options={},
            status="SUBMITTING",
            reference_secret="s" * 20,
            check_failures=0,
            submitted_at=utcnow() - timedelta(minutes=5),
        )
        db.session.add(stuck)
        db.session.commit()
        stuck_id = stuck.id

    emulated.sync()
    assert emulated.row(stuck_id).status == "UNCONFIRMED"
    emulated.app.config.update(
        DEPLOYMENTS_UNCONFIRMED_GRACE_SECONDS=60, DEPLOYMENTS_SYNC_LIST_SECONDS=0
    )
    emulated.sync()

    row = emulated.row(stuck_id)
    assert row.status == "NOT_LAUNCHED" and "nothing was launched" in row.status_reason
    assert emulated.posts() == 0
