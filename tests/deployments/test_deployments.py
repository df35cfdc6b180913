"""Launching on the demo orchestrator, following the status, and what each page shows."""

import re

import pytest

from app.deployments.models import Deployment
from app.deployments.operations import LaunchError
from app.extensions import db
from tests.conftest import post_form


def rows(client) -> str:
    return client.get("/deployments/rows").get_data(as_text=True)


def stored(app, deployment_id) -> Deployment:
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        db.session.expunge(deployment)
        return deployment


def test_a_refused_launch_passes_on_the_orchestrators_reason(app, people, launch_as):
    user_id = people.create("ada")
    with pytest.raises(LaunchError) as raised:
        launch_as(user_id, {"num_cpus": 2})
    assert "Nothing was launched." in raised.value.message
    assert "jupyter_password" in raised.value.message


def test_another_users_deployment_is_not_found(app, client, people, login_as, launch_as):
    deployment_id = launch_as(people.create("owner"))
    login_as()

    for url in (
        f"/deployments/{deployment_id}",
        f"/deployments/{deployment_id}/status",
        f"/deployments/{deployment_id}/outputs/node_ip",
    ):
        assert client.get(url).status_code == 404, url
    answer = post_form(client, "/deployments/", f"/deployments/{deployment_id}/delete", {})
    assert answer.status_code == 404
    assert "owner" not in rows(client) and "Test notebook" not in rows(client)
    assert stored(app, deployment_id).status == "creating"


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
