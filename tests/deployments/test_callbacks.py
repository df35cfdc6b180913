"""The orchestrator's callback: the URL's secret is the only key; a forged, missing or
misdirected callback changes nothing; a real one updates the deployment at once."""

import threading
import time

import pytest
from werkzeug.serving import make_server

from app.deployments.models import Deployment
from app.extensions import db


def callback_url(row, secret=None) -> str:
    return f"/deployments/callback/{row.id}/{secret or row.reference_secret}"


def completed_json(row) -> dict:
    return {
        "uuid": row.uuid,
        "status": "CREATE_COMPLETE",
        "task": "NONE",
        "creationTime": "2026-11-24T04:00+0000",
        "outputs": {
            "jupyter_endpoint": "https://nb.example.org/",
            "node_creds": {"user": "ada", "token": "very-secret-token"},
        },
        "cloudProviderName": "provider-X",
        "cloudProviderEndpoint": {"deploymentType": "OPENSTACK", "region": "north"},
    }


@pytest.fixture
def launched(emulated):
    ada = emulated.user("ada")
    return emulated.row(emulated.launch(ada))


def test_a_callback_with_the_right_secret_updates_the_deployment(emulated, launched):
    answer = emulated.app.test_client().post(callback_url(launched), json=completed_json(launched))

    row = emulated.row(launched.id)
    assert answer.status_code == 204
    assert row.status == "ready" and row.site == "provider-X" and row.region == "north"
    assert row.outputs == {"jupyter_endpoint": "https://nb.example.org/"}
    assert (row.events[-1].to_status, row.events[-1].source) == ("ready", "callback")


@pytest.mark.parametrize("secret", ["forged-secret", "x", "A" * 43])
def test_a_forged_secret_changes_nothing(emulated, launched, secret):
    answer = emulated.app.test_client().post(
        callback_url(launched, secret), json=completed_json(launched)
    )

    row = emulated.row(launched.id)
    assert answer.status_code == 404
    assert row.status == "creating" and len(row.events) == len(launched.events)


def test_a_missing_secret_or_unknown_deployment_changes_nothing(emulated, launched):
    client = emulated.app.test_client()

    missing = client.post(f"/deployments/callback/{launched.id}/", json=completed_json(launched))
    bare = client.post(f"/deployments/callback/{launched.id}", json=completed_json(launched))
    unknown = client.post(
        f"/deployments/callback/{launched.id + 99}/{launched.reference_secret}",
        json=completed_json(launched),
    )

    assert {missing.status_code, bare.status_code, unknown.status_code} <= {404, 405}
    assert emulated.row(launched.id).status == "creating"


def test_another_deployments_secret_does_not_open_this_one(emulated, launched):
    other = emulated.row(emulated.launch(emulated.user("bob")))

    answer = emulated.app.test_client().post(
        callback_url(launched, other.reference_secret), json=completed_json(launched)
    )

    assert answer.status_code == 404
    assert emulated.row(launched.id).status == "creating"


def test_a_body_about_another_deployment_or_unreadable_changes_nothing(emulated, launched):
    client = emulated.app.test_client()
    elsewhere = {**completed_json(launched), "uuid": "11111111-2222-3333-4444-555555555555"}

    misdirected = client.post(callback_url(launched), json=elsewhere)
    garbled = client.post(callback_url(launched), data="not json", content_type="application/json")
    empty = client.post(callback_url(launched), json={"status": "CREATE_COMPLETE"})

    assert misdirected.status_code == 404
    assert garbled.status_code == 400 and empty.status_code == 400
    assert emulated.row(launched.id).status == "creating"


@pytest.fixture
def served(make_app, orchestrator_emulator, emulated_settings):
    """The portal served over HTTP on loopback, so that the emulator can call it back."""
    from tests.deployments.conftest import SERVICE_TOKEN, Emulated, save_and_publish

    orchestrator_emulator.add_token(
        SERVICE_TOKEN, "portal-service", "https://iam.test/", groups=["physics"]
    )
    app = make_app(ORCHESTRATOR_URL=orchestrator_emulator.url, **emulated_settings)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    app.config["PORTAL_BASE_URL"] = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    save_and_publish(app)
    yield Emulated(app, orchestrator_emulator)
    server.shutdown()
    thread.join(5)


def test_the_orchestrators_callback_brings_the_deployment_up_to_date_without_sync(served):
    deployment_id = served.launch(served.user("ada"))
    [held] = served.emulator.deployments()

    served.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    deadline = time.monotonic() + 10
    while served.row(deployment_id).status != "ready" and time.monotonic() < deadline:
        time.sleep(0.1)
    row = served.row(deployment_id)
    assert row.status == "ready" and row.events[-1].source == "callback"
    assert "jupyter_endpoint" in row.outputs and "node_creds" not in row.outputs
    with served.app.app_context():
        assert db.session.get(Deployment, deployment_id).secret_outputs_sealed


def test_a_callback_overtaken_by_the_final_one_does_not_undo_it(emulated, launched):
    client = emulated.app.test_client()
    assert client.post(callback_url(launched), json=completed_json(launched)).status_code == 204
    earlier = {**completed_json(launched), "status": "CREATE_IN_PROGRESS", "outputs": {}}
    assert client.post(callback_url(launched), json=earlier).status_code == 204
    row = emulated.row(launched.id)
    assert row.status == "ready"
    assert row.outputs == {"jupyter_endpoint": "https://nb.example.org/"}
    # A new workflow on the same deployment is news, not an echo of the old one.
    deleting = {**completed_json(launched), "status": "DELETE_IN_PROGRESS"}
    assert client.post(callback_url(launched), json=deleting).status_code == 204
    assert emulated.row(launched.id).status == "deleting"
