"""A template routed to the Infrastructure Manager, launched through the portal's API and its
pages, followed by the sync worker to Ready with its outputs, and deleted: against a real IM."""

import pytest

from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from tests.api.conftest import Callers
from tests.backends.im.conftest import DATA, SIDECAR, at_im, sync_until
from tests.conftest import post_form
from tests.fixtures.im_server import DUMMY_CLOUD


def test_an_im_template_launched_through_the_api_is_ready_with_its_outputs_then_deleted(
    portal, im_server, im_identity
):
    ada = Callers(portal)("ada")
    answer = ada.launch(name="im-1", template="one-machine", parameters={"num_cpus": 2})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert body["backend"] == "im" and body["status"] == "CREATE_IN_PROGRESS"

    row = sync_until(portal, body["id"], lambda r: r.status != "creating")
    assert (row.status, row.backend, row.backend_state) == ("ready", "im", "configured")
    shown = ada.get(f"/api/v1/deployments/{body['id']}").get_json()
    assert shown["status"] == "CREATE_COMPLETE" and shown["backend"] == "im"
    assert shown["outputs"].get("node_ip") == "10.0.0.1", (shown, row.outputs)
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == [row.uuid]

    gone = ada.delete(f"/api/v1/deployments/{body['id']}")
    assert gone.status_code == 202, gone.get_json()
    row = sync_until(portal, body["id"], lambda r: r.deleted)
    assert row.deleted and row.status == "deleted"
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == []


FORM = {"deployment_name": "from the page", "num_cpus": "2", "mem_size": "1 GB"}


def test_the_launch_page_says_the_template_runs_on_im_and_launches_there(portal, people_for):
    client = portal.test_client()
    people = people_for(portal, client)
    people.create("grace")
    assert people.login("grace").status_code == 302
    page = client.get("/catalogue/one-machine/")
    assert page.status_code == 200
    assert "Runs on: Infrastructure Manager" in page.get_data(as_text=True)
    # The portal's orchestrator is the demo, but this template runs on IM, for real.
    assert "nothing real" not in page.get_data(as_text=True)

    sent = post_form(
        client,
        "/catalogue/one-machine/",
        "/catalogue/one-machine/",
        FORM,
    )
    assert sent.status_code in (302, 303), sent.get_data(as_text=True)[:2000]
    with portal.app_context():
        deployment_id = db.session.scalar(
            db.select(Deployment.id).where(Deployment.name == "from the page")
        )
    row = sync_until(portal, deployment_id, lambda r: r.status != "creating")
    assert (row.status, row.backend, row.outputs.get("node_ip")) == ("ready", "im", "10.0.0.1")
    shown = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert "Infrastructure Manager" in shown and "10.0.0.1" in shown
    assert "nothing real" not in shown and "demo-banner" not in shown


@pytest.fixture
def faulty(im_server):
    relay = im_server.fault_relay()
    yield relay
    relay.close()


def _portal_through(make_app, faulty, im_identity, timeout=(1, 0.5)):
    host, port = faulty.address
    username, password = im_identity
    app = make_app(
        ORCHESTRATOR_URL="demo",
        IM_URL=f"http://{host}:{port}",
        IM_CLOUDS=DUMMY_CLOUD,
        IM_USERNAME=username,
        IM_PASSWORD=password,
        IM_TIMEOUT=list(timeout),
        DEPLOYMENTS_SYNC_INTERVAL_SECONDS=0,
        DEPLOYMENTS_SYNC_LIST_SECONDS=0,
        DEPLOYMENTS_SUBMITTING_STALE_SECONDS=0,
        LAUNCHES_PER_MINUTE=0,
    )
    with app.app_context():
        save_revision("one-machine", (DATA / "compute.yaml").read_text(), SIDECAR, "t", create=True)
        publish("one-machine", "test")
    return app


def test_a_create_whose_answer_is_lost_is_found_by_its_tag_with_no_duplicate(
    make_app, faulty, im_server, im_identity
):
    portal = _portal_through(make_app, faulty, im_identity)
    faulty.fault, faulty.delay = "delay", 1.5  # IM makes it; its answer comes too late
    answer = Callers(portal)("ada").launch(name="slow", template="one-machine", parameters={})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["status"] == "UNCONFIRMED"

    faulty.fault = None
    row = sync_until(portal, answer.get_json()["id"], lambda r: r.status == "ready")
    assert (row.status, row.outputs.get("node_ip")) == ("ready", "10.0.0.1")
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == [row.uuid]


def test_a_launch_while_im_is_stopped_launches_nothing_and_says_so(
    make_app, faulty, im_server, im_identity
):
    portal = _portal_through(make_app, faulty, im_identity)
    faulty.close()  # nothing listens there: IM is stopped
    answer = Callers(portal)("ada").launch(name="down", template="one-machine", parameters={})
    said = answer.get_json()["detail"]
    assert answer.status_code >= 500 and "Nothing was launched" in said
    assert said.startswith("Infrastructure Manager is not answering right now.")
    assert "orchestrator" not in said
    with portal.app_context():
        row = db.session.scalar(db.select(Deployment).where(Deployment.name == "down"))
        assert (row.status, row.uuid) == ("NOT_LAUNCHED", None)
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == []
