"""What people do from the deployment page, against the orchestrator emulator: relaunch, reset
a stuck delete, force a delete, and download a kept credential."""

from app.extensions import db
from tests.conftest import csrf_from


def logged_in(emulated, people_for, username):
    client = emulated.app.test_client()
    people_for(emulated.app, client).login(username)
    return client


def post(client, url, data=None):
    token = csrf_from(client.get("/deployments/").get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **(data or {})})


def set_status(emulated, deployment_id, status):
    from app.deployments.models import Deployment

    with emulated.app.app_context():
        db.session.get(Deployment, deployment_id).status = status
        db.session.commit()


def test_relaunching_sends_the_same_settings_again_under_the_new_name(emulated, people_for):
    settings = {"num_cpus": 3, "ssh_public_key": ""}
    first = emulated.launch(emulated.user("ada"), slug="secret-notebook", parameters=settings)
    client = logged_in(emulated, people_for, "ada")

    answer = post(client, f"/deployments/{first}/relaunch", {"name": "Second run"})

    assert answer.status_code == 302
    second = int(answer.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    assert second != first and emulated.row(second).name == "Second run"
    old, new = (emulated.emulator.submitted(emulated.row(i).uuid) for i in (first, second))
    assert emulated.posts() == 2 and new["parameters"]["num_cpus"] == 3
    assert new["parameters"]["jupyter_password"] != old["parameters"]["jupyter_password"]
    assert "Second run" in client.get(f"/deployments/{second}").get_data(as_text=True)


def test_relaunching_without_a_name_launches_nothing_and_says_why(emulated, people_for):
    first = emulated.launch(emulated.user("ada"), slug="secret-notebook", parameters={})
    client = logged_in(emulated, people_for, "ada")

    answer = post(client, f"/deployments/{first}/relaunch", {"name": "   "})
    page = client.get(answer.headers["Location"]).get_data(as_text=True)

    assert "Give the new deployment a name; nothing was launched." in page
    assert emulated.posts() == 1


def test_a_deployment_launched_with_a_typed_password_offers_only_edit_and_relaunch(
    emulated, people_for
):
    first = emulated.launch(emulated.user("ada"))
    client = logged_in(emulated, people_for, "ada")

    page = client.get(f"/deployments/{first}").get_data(as_text=True)
    answer = post(client, f"/deployments/{first}/relaunch", {"name": "Again"})
    after = client.get(answer.headers["Location"]).get_data(as_text=True)

    assert f'action="/deployments/{first}/relaunch"' not in page and "Edit and relaunch" in page
    assert "use “Edit and relaunch” to type it again" in after
    assert emulated.posts() == 1


def test_a_stuck_delete_is_reset_then_forced_from_the_page(emulated, people_for):
    deployment_id = emulated.launch(emulated.user("ada"))
    uuid = emulated.row(deployment_id).uuid
    client = logged_in(emulated, people_for, "ada")
    emulated.emulator.set_status(uuid, "DELETE_IN_PROGRESS")
    set_status(emulated, deployment_id, "DELETE_IN_PROGRESS")

    reset = post(client, f"/deployments/{deployment_id}/reset")
    after_reset = client.get(reset.headers["Location"]).get_data(as_text=True)
    status_after_reset = emulated.row(deployment_id).status
    forced = post(client, f"/deployments/{deployment_id}/delete", {"force": "1"})

    assert "The stuck delete was reset" in after_reset
    assert status_after_reset == "delete-failed"
    assert forced.status_code == 302
    calls = [
        (r["method"], r["query"])
        for r in emulated.emulator.requests()
        if r["path"] == f"/deployments/{uuid}"
    ]
    assert [method for method, _query in calls if method != "GET"] == ["PATCH", "DELETE"]
    assert [query for method, query in calls if method == "DELETE"] == [{"force": "true"}]
    assert emulated.row(deployment_id).status == "deleting"


def test_an_orchestrator_refusal_is_shown_on_the_page_and_changes_nothing(emulated, people_for):
    deployment_id = emulated.launch(emulated.user("ada"))
    client = logged_in(emulated, people_for, "ada")
    emulated.emulator.set_faults(error_rate=1.0, error_status=500)

    answer = post(client, f"/deployments/{deployment_id}/delete")
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    emulated.emulator.clear_faults()

    assert "The deployment was not deleted." in page
    assert emulated.row(deployment_id).status == "creating"


def test_a_deleted_deployments_status_poll_sends_the_browser_to_the_list(emulated, people_for):
    deployment_id = emulated.launch(emulated.user("ada"))
    client = logged_in(emulated, people_for, "ada")
    from app.deployments.models import Deployment

    with emulated.app.app_context():
        db.session.get(Deployment, deployment_id).deleted = True
        db.session.commit()

    answer = client.get(f"/deployments/{deployment_id}/status", headers={"HX-Request": "true"})

    assert answer.status_code == 204 and answer.headers["HX-Redirect"] == "/deployments/"
    assert client.get(f"/deployments/{deployment_id}").status_code == 404
