"""A site picked at launch reaches the Infrastructure Manager as the one cloud line the portal
sends: launched through the API against a real IM with two clouds set up."""

from app.deployments.models import Deployment
from app.extensions import db
from tests.api.conftest import Callers
from tests.backends.im.conftest import sync_until
from tests.fixtures.im_server import DUMMY_CLOUD
from tests.launch.site_support import add_site


def test_an_im_launch_at_a_picked_site_sends_only_that_cloud_and_is_ready(portal, people_for):
    cloud_id = DUMMY_CLOUD.split(";")[0].partition("=")[2].strip()
    portal.config["IM_CLOUDS"] = [DUMMY_CLOUD, "id = elsewhere; type = Dummy"]
    add_site(portal, "DUMMY-SITE", backend="im", placement=cloud_id, gpus={})
    ada = Callers(portal)("ada")

    dry = ada.post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "one-machine", "parameters": {"num_cpus": 2}},
    ).get_json()
    assert [(s["site"], s["verdict"]) for s in dry["sites"]] == [("DUMMY-SITE", "fits")]
    assert dry["placement"]["choosable"] is True

    answer = ada.post(
        "/api/v1/deployments",
        json={
            "template": "one-machine",
            "name": "im-at-site",
            "parameters": {"num_cpus": 2},
            "site": "DUMMY-SITE",
        },
    )
    assert answer.status_code == 201, answer.get_json()
    row = sync_until(portal, answer.get_json()["id"], lambda r: r.status != "creating")
    assert row.status == "ready"
    with portal.app_context():
        stored = db.session.get(Deployment, row.id)
        assert stored.request_options["placement"] == cloud_id
    # IM never says where it deployed: the site is the cloud the portal sent it to.
    assert row.site == cloud_id
    client = portal.test_client()
    assert people_for(portal, client).login("ada").status_code == 302
    facts = client.get(f"/deployments/{row.id}").get_data(as_text=True)
    assert "<dt>Site</dt><dd>DUMMY-SITE" in facts and "Not chosen yet" not in facts
