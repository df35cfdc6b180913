"""Launching on the demo orchestrator, following the status, and what each page shows."""

import re

import pytest

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.deployments.models import Deployment
from app.deployments.operations import LaunchError, launch
from app.extensions import db
from tests.conftest import post_form
from tests.deployments.conftest import PARAMETERS


def rows(client) -> str:
    return client.get("/deployments/rows").get_data(as_text=True)


def stored(app, deployment_id) -> Deployment:
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        db.session.expunge(deployment)
        return deployment


def test_launching_records_the_deployment_without_its_passwords(app, people, launch_as):
    user_id = people.create("ada")
    deployment = stored(app, launch_as(user_id))

    assert deployment.status == "CREATE_IN_PROGRESS"
    assert deployment.template_slug == "test-notebook" and deployment.name == "Test notebook"
    assert deployment.parameters == {"num_cpus": 2, "ssh_public_key": ""}
    assert deployment.uuid and deployment.user_id == user_id


def test_polling_the_list_brings_the_deployment_to_ready_with_its_access_details(
    app, client, login_as, launch_as
):
    deployment_id = launch_as(login_as())

    before = client.get("/deployments/").get_data(as_text=True)
    after = rows(client)

    assert "Creating" in before and 'hx-trigger="every 5s"' in before
    assert "Ready" in after and "hx-trigger" not in after
    assert 'href="https://jupyter.demo.invalid/"' in after
    assert 'value="ssh 192.0.2.10"' in after
    assert "demo-secret-not-a-real-key" not in after  # secrets only on the deployment's page
    assert stored(app, deployment_id).site == "provider-DEMO-SITE"


def test_the_deployment_page_shows_each_output_the_way_its_template_asks(
    client, login_as, launch_as
):
    deployment_id = launch_as(login_as())
    client.get(f"/deployments/{deployment_id}/status")

    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    download = client.get(f"/deployments/{deployment_id}/outputs/kube_config")

    assert "Open Notebook" in page and "Address of the notebook server" in page
    assert "<summary>Show Login</summary>" in page and "demo-secret-not-a-real-key" in page
    assert "Download Cluster configuration" in page
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert "server: https://kube.demo.invalid:6443" in download.get_data(as_text=True)
    assert "s3cret-passw0rd" not in page


def test_the_deployment_page_lists_the_settings_under_the_forms_labels(client, login_as, launch_as):
    deployment_id = launch_as(login_as())

    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    settings = page[page.index("deployment-settings") :]

    assert 'title="num_cpus">Cores</th><td>2</td>' in settings
    assert 'title="ssh_public_key">Ssh public key</th><td>(empty)</td>' in settings
    assert settings.index(">Cores<") < settings.index(">Ssh public key<")
    assert "Jupyter password" not in settings and "s3cret-passw0rd" not in page


@pytest.mark.parametrize("fault", [{"down": True}, {"status": 500}, {"delay": 0.4}])
def test_an_orchestrator_that_does_not_answer_leaves_a_clear_message_and_no_deployment(
    app, people, faults, fault
):
    user_id = people.create("ada")
    for name, value in fault.items():
        setattr(faults, name, value)
    with app.app_context():
        app.config["ORCHESTRATOR_TIMEOUT"] = (1, 0.2)
        with pytest.raises(LaunchError) as raised:
            launch(db.session.get(User, user_id), catalogue().get("test-notebook"), PARAMETERS)
        assert db.session.query(Deployment).count() == 0
    assert raised.value.message == (
        "The orchestrator is not answering right now; nothing was launched. Try again in a few "
        "minutes."
    )


def test_a_refused_launch_passes_on_the_orchestrators_reason(app, people, launch_as):
    user_id = people.create("ada")
    with pytest.raises(LaunchError) as raised:
        launch_as(user_id, {"num_cpus": 2})
    assert "nothing was launched" in raised.value.message
    assert "jupyter_password" in raised.value.message


def test_local_accounts_cannot_launch_on_a_real_orchestrator(app, people, launch_as):
    user_id = people.create("ada")
    app.config["ORCHESTRATOR_URL"] = "https://orchestrator.example.org"

    with pytest.raises(LaunchError) as raised:
        launch_as(user_id)

    assert raised.value.message.startswith("Launching needs a login through")
    assert "local accounts can only launch on the demo orchestrator" in raised.value.message


def test_another_users_deployment_is_not_found(app, client, people, login_as, launch_as):
    deployment_id = launch_as(people.create("owner"))
    login_as()

    for url in (f"/deployments/{deployment_id}", f"/deployments/{deployment_id}/status",
                f"/deployments/{deployment_id}/outputs/node_ip"):  # fmt: skip
        assert client.get(url).status_code == 404, url
    answer = post_form(client, "/deployments/", f"/deployments/{deployment_id}/delete", {})
    assert answer.status_code == 404
    assert "owner" not in rows(client) and "Test notebook" not in rows(client)
    assert stored(app, deployment_id).status == "CREATE_IN_PROGRESS"


def test_deleting_a_deployment_takes_it_off_the_list_once_it_is_gone(
    app, client, login_as, launch_as
):
    deployment_id = launch_as(login_as())
    rows(client)

    answer = post_form(client, "/deployments/", f"/deployments/{deployment_id}/delete", {})
    deleting = client.get("/deployments/").get_data(as_text=True)
    gone = rows(client)

    assert answer.status_code == 302
    assert "Deleting" in deleting
    assert "Test notebook" not in gone and "You have no deployments yet" in gone
    assert stored(app, deployment_id).deleted


def test_the_list_renders_from_the_database_while_the_orchestrator_is_down(
    client, login_as, launch_as, faults
):
    launch_as(login_as())
    faults.down = True

    page = client.get("/deployments/")
    partial = rows(client)

    assert page.status_code == 200 and "Creating" in page.get_data(as_text=True)
    assert "The latest status could not be fetched" in partial and "Creating" in partial


def test_a_failed_deployment_says_why(client, login_as, launch_as, faults):
    faults.fail_creates = True
    deployment_id = launch_as(login_as())

    page = client.get(f"/deployments/{deployment_id}/status").get_data(as_text=True)

    assert "Failed" in page and "no site could host the deployment" in page


def test_an_empty_list_points_to_the_catalogue(client, login_as):
    login_as()
    page = client.get("/deployments/").get_data(as_text=True)
    assert "You have no deployments yet" in page and 'href="/catalogue/"' in page


def test_deployment_pages_have_no_inline_scripts_or_styles(client, login_as, launch_as):
    deployment_id = launch_as(login_as())
    for url in ("/deployments/", "/deployments/rows", f"/deployments/{deployment_id}"):
        html = client.get(url).get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), url
        assert not re.search(r"\sstyle=|<style", html), url
