"""A deployment shows its template's name and output labels in the reader's language: the record
keeps the default-language name it was launched with, and the revision launched, which never
changes, gives the same name in each language."""

from html import unescape

import pytest
from flask_babel import force_locale

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from app.launch.request import LaunchRequest
from app.launch.workflow import launch
from tests.deployments.conftest import PARAMETERS, SIDECAR, TEMPLATE

IT = {"Accept-Language": "it"}
EN = {"Accept-Language": "en"}
ITALIAN_SIDECAR = SIDECAR + (
    "translations:\n"
    "  it:\n"
    "    name: Notebook di prova\n"
    "    outputs:\n"
    "      jupyter_endpoint: {label: Il notebook}\n"
    "      node_ip: {label: Indirizzo IP}\n"
)


@pytest.fixture
def italian(app):
    """The test template published again with Italian words."""
    with app.app_context():
        save_revision("test-notebook", TEMPLATE, ITALIAN_SIDECAR, "test")
        publish("test-notebook", "test")


def _text(client, url, headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200
    return unescape(response.get_data(as_text=True))


def test_the_deployment_page_names_the_template_and_outputs_in_italian(
    client, login_as, make_deployment, italian
):
    deployment_id = make_deployment(
        login_as(),
        name="",
        outputs={"jupyter_endpoint": "https://nb.example.org", "node_ip": "10.0.0.7"},
    )

    italian_page = _text(client, f"/deployments/{deployment_id}", IT)
    english_page = _text(client, f"/deployments/{deployment_id}", EN)

    assert "Notebook di prova" in italian_page
    assert "Indirizzo IP" in italian_page
    assert "Il notebook" in italian_page
    assert "Test notebook" in english_page
    assert "IP address" in english_page
    assert "Notebook di prova" not in english_page and "Indirizzo IP" not in english_page


def test_the_list_and_its_template_filter_name_the_template_in_italian(
    client, login_as, make_deployment, italian
):
    make_deployment(login_as(), name="")

    italian_list = _text(client, "/deployments/", IT)
    english_list = _text(client, "/deployments/", EN)

    assert italian_list.count("Notebook di prova") >= 2  # the row and the filter's choice
    assert "Notebook di prova" not in english_list
    assert "Test notebook" in english_list


def test_a_launch_from_an_italian_request_records_the_default_language_name(app, people, italian):
    user_id = people.create("ada")
    with app.app_context():
        user = db.session.get(User, user_id)
        with force_locale("it"):
            deployment = launch(
                LaunchRequest(user, catalogue().get("test-notebook"), dict(PARAMETERS))
            )
            assert deployment.shown_template_name == "Notebook di prova"
        assert deployment.template_name == "Test notebook"
        assert deployment.name.startswith("Notebook di prova ")  # the person's own name for it


def test_a_record_whose_name_is_not_its_revisions_keeps_its_own(
    app, login_as, make_deployment, italian
):
    user_id = login_as()
    deployment_id = make_deployment(user_id, template_name="Renamed before the record")
    gone = make_deployment(user_id, revision_id=None)
    with app.app_context():
        deployment = db.session.get(Deployment, deployment_id)
        with force_locale("it"):
            assert deployment.shown_template_name == "Renamed before the record"
            assert db.session.get(Deployment, gone).shown_template_name == "Test notebook"
