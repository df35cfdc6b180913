"""The API gives a template's own words in the request's language, as the pages do."""

from app.catalogue.operations import publish, save_revision
from tests.deployments.conftest import SIDECAR, TEMPLATE

ITALIAN_SIDECAR = SIDECAR + (
    "translations:\n"
    "  it:\n"
    "    name: Notebook di prova\n"
    "    inputs:\n"
    "      num_cpus: {label: Core}\n"
    "    outputs:\n"
    "      node_ip: {label: Indirizzo IP}\n"
)


def _publish_italian(app) -> None:
    with app.app_context():
        save_revision("test-notebook", TEMPLATE, ITALIAN_SIDECAR, "test")
        publish("test-notebook", "test")


def test_a_template_is_described_in_italian_to_an_italian_request(app, callers):
    _publish_italian(app)
    ada = callers("ada")

    italian = ada.get("/api/v1/templates/test-notebook", headers={"Accept-Language": "it"})
    english = ada.get("/api/v1/templates/test-notebook", headers={"Accept-Language": "en"})

    body = italian.get_json()
    assert body["name"] == "Notebook di prova"
    assert {i["name"]: i["label"] for i in body["inputs"]}["num_cpus"] == "Core"
    assert {o["name"]: o["label"] for o in body["outputs"]}["node_ip"] == "Indirizzo IP"
    # A word without Italian comes in English.
    assert {o["name"]: o["label"] for o in body["outputs"]}["node_creds"] == "Login"
    assert english.get_json()["name"] == "Test notebook"


def test_a_deployment_names_its_template_in_italian_and_keeps_the_record(app, callers):
    _publish_italian(app)
    ada = callers("ada")
    launched = ada.launch()
    assert launched.status_code == 201, launched.get_json()
    deployment_id = launched.get_json()["id"]

    italian = ada.get(f"/api/v1/deployments/{deployment_id}", headers={"Accept-Language": "it"})
    english = ada.get(f"/api/v1/deployments/{deployment_id}", headers={"Accept-Language": "en"})

    assert italian.get_json()["template_name"] == "Notebook di prova"
    assert english.get_json()["template_name"] == "Test notebook"
