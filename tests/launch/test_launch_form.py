"""The launch page's part in launching: the name and group fields, the message shown before
the form when launching is impossible, and the hand-over of generated secrets."""

import re

from app.auth.models import User
from app.deployments import operations
from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from


def login(emulated, username):
    client = emulated.app.test_client()
    page = client.get("/login")
    client.post(
        "/login",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "username": username,
            "password": "correct horse battery",
            "method": "local",
        },
    )
    return client


def form_data(page_html: str, **values) -> dict:
    return {"csrf_token": csrf_from(page_html), "num_cpus": "2", "ssh_public_key": "", **values}


def test_the_form_offers_a_name_and_the_users_groups_remembered_per_template(emulated):
    emulated.user("ada", groups=("physics", "chemistry"))
    client = login(emulated, "ada")
    page = client.get("/catalogue/secret-notebook/").get_data(as_text=True)

    assert re.search(r'name="deployment_name"[^>]*value="Test notebook [0-9a-f]{4}"', page)
    assert '<option value="chemistry"' in page and '<option value="physics"' in page

    data = form_data(page, deployment_name="Thesis runs", group="chemistry")
    answer = client.post("/catalogue/secret-notebook/", data=data)
    assert answer.status_code == 302
    again = client.get("/catalogue/secret-notebook/").get_data(as_text=True)
    assert '<option value="chemistry" selected' in again


def test_a_generated_password_reaches_the_orchestrator_and_its_owner(emulated):
    ada = emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/secret-notebook/").get_data(as_text=True)

    data = form_data(page, deployment_name="Mine", jupyter_password="")
    answer = client.post("/catalogue/secret-notebook/", data=data)

    assert answer.status_code == 302
    [held] = emulated.emulator.deployments()
    sent = emulated.emulator.submitted(held["uuid"])["parameters"]["jupyter_password"]
    with emulated.app.app_context():
        deployment = db.session.scalar(db.select(Deployment))
        assert deployment.name == "Mine"
        revealed = operations.reveal_secrets(db.session.get(User, ada), deployment)
    assert revealed == {"jupyter_password": sent}


def test_a_typed_password_is_sent_and_not_kept(emulated):
    ada = emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/secret-notebook/").get_data(as_text=True)

    client.post(
        "/catalogue/secret-notebook/", data=form_data(page, jupyter_password="typed-pw-123")
    )

    with emulated.app.app_context():
        deployment = db.session.scalar(db.select(Deployment))
        assert operations.reveal_secrets(db.session.get(User, ada), deployment) == {}


def test_a_too_long_name_is_refused_keeping_what_was_typed(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    long_name = "n" * 130

    data = form_data(page, deployment_name=long_name, jupyter_password="pw-12345678")
    answer = client.post("/catalogue/test-notebook/", data=data)

    html = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "120 characters or fewer" in html
    assert f'value="{long_name}"' in html and 'value="2"' in html
    assert emulated.posts() == 0


def test_people_who_cannot_launch_are_told_before_filling_anything_in(emulated):
    emulated.app.config["ORCHESTRATOR_SERVICE_IDENTITY"] = None
    emulated.user("ada")
    client = login(emulated, "ada")

    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    answer = client.post(
        "/catalogue/test-notebook/", data=form_data(page, jupyter_password="x" * 9)
    )

    assert 'id="launch-blocker"' in page and "Test IAM" in page
    assert answer.status_code == 403 and emulated.posts() == 0


def test_an_unconfirmed_launch_says_so_and_a_second_try_points_to_it(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    emulated.emulator.set_faults(lose_create_response="drop", paths=["POST /deployments"])
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    data = form_data(page, deployment_name="Once", jupyter_password="pw-12345678")

    first = client.post("/catalogue/test-notebook/", data=data, follow_redirects=True)
    second = client.post("/catalogue/test-notebook/", data=data)

    assert "will not submit it twice" in first.get_data(as_text=True)
    assert second.status_code == 409 and "See the earlier launch" in second.get_data(as_text=True)
    assert emulated.posts() == 1
