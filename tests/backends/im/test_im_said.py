"""What IM says is kept and shown masked and bounded, against a real IM: an output holding the
portal's IM password is stored and shown with it masked, and an output far larger than a page
should carry is stored cut, saying so, so that My deployments stays small."""

from app.catalogue.operations import publish, save_revision
from app.deployments import said
from tests.api.conftest import Callers
from tests.backends.im.conftest import DATA, sync_until

SIDECAR = "name: Echo\nbackend: im\n"
BLOB = "0123456789" * 400  # 4,000 characters; the output gives it five times


def test_an_outputs_credential_is_masked_and_a_huge_output_is_kept_cut(
    portal, im_identity, people_for
):
    _username, password = im_identity
    with portal.app_context():
        save_revision("echo", (DATA / "echo.yaml").read_text(), SIDECAR, "t", create=True)
        publish("echo", "test")
    ada = Callers(portal)("ada")
    answer = ada.launch(
        name="echo-1",
        template="echo",
        parameters={"note": f"the portal signs in with {password}", "blob": BLOB},
    )
    assert answer.status_code == 201, answer.get_json()
    deployment_id = answer.get_json()["id"]

    row = sync_until(portal, deployment_id, lambda r: r.status != "creating")
    assert row.status == "ready", (row.status, row.status_reason)
    assert row.outputs["note"] == "the portal signs in with ***"
    assert said.cut_of(row.outputs["blob"]) == 5 * len(BLOB)
    assert len(row.outputs["blob"]["text"]) == said.OUTPUT_MAX

    client = portal.test_client()
    people = people_for(portal, client)
    people.create("root", roles=("admin",))
    assert people.login("root").status_code == 302
    detail = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    listing = client.get("/deployments/?user=ada").get_data(as_text=True)
    shown = ada.get(f"/api/v1/deployments/{deployment_id}").get_json()
    # The settings show the note as it was typed (the person's, not the backend's words).
    status = detail.split('id="deployment-status"')[1].split("</section>")[0]
    for text in (status, listing, str(shown["outputs"])):
        assert password not in text
    assert "the portal signs in with ***" in status
    assert "Cut: only its first 4,096 characters of 20,000 are kept." in detail
    assert len(listing) < 40_000
