"""The portal's deployment life cycle against answers a faithful orchestrator (or a proxy in
front of it) gives: a 404 that is not the orchestrator's, a concurrent-update 409 on delete,
and a delete before brokering, after which the deployment is simply gone."""

import pytest

from app.auth.models import User
from app.deployments import operations
from app.deployments.errors import DeploymentError
from app.deployments.models import Deployment
from app.extensions import db


def launched_and_complete(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")
    emulated.sync()
    return ada, deployment_id, held["uuid"]


def delete(emulated, user_id, deployment_id):
    with emulated.app.app_context():
        user = db.session.get(User, user_id)
        operations.delete(user, db.session.get(Deployment, deployment_id))


def test_a_proxy_404_while_deleting_does_not_count_as_deleted(emulated):
    ada, deployment_id, _ = launched_and_complete(emulated)
    delete(emulated, ada, deployment_id)
    emulated.emulator.set_faults(
        error_rate=1.0, error_status=404, error_body=False, paths=["GET /deployments/*"]
    )

    emulated.sync()

    row = emulated.row(deployment_id)
    assert row.status == "deleting" and not row.deleted
    assert row.check_failures == 1


def test_a_proxy_404_does_not_make_a_deployment_vanish(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    emulated.sync()
    emulated.emulator.set_faults(
        error_rate=1.0, error_status=404, gateway_errors=True, paths=["GET /deployments/*"]
    )

    emulated.sync()

    assert emulated.row(deployment_id).status == "creating"


def test_a_concurrent_update_conflict_on_delete_is_not_taken_for_a_delete_under_way(emulated):
    ada, deployment_id, uuid = launched_and_complete(emulated)
    emulated.emulator.set_faults(error_rate=1.0, error_status=409, paths=["DELETE /deployments/*"])

    with pytest.raises(DeploymentError) as raised:
        delete(emulated, ada, deployment_id)

    assert "busy" in raised.value.message and "not deleted" in raised.value.message
    assert emulated.row(deployment_id).status == "ready"
    deletes = [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]
    assert len(deletes) == 2  # the orchestrator says "retry now": once, then give up
    emulated.emulator.clear_faults()
    assert emulated.emulator.deployments()[0]["status"] == "CREATE_COMPLETE"


def test_a_delete_before_a_site_is_chosen_is_followed_to_its_end(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)

    delete(emulated, ada, deployment_id)
    assert emulated.emulator.deployments() == []  # removed at once, nothing to undeploy
    emulated.sync()

    row = emulated.row(deployment_id)
    assert row.deleted and row.status == "deleted"
