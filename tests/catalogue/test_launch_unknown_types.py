"""A template whose types no library holds is published with a warning, gets its form, and is
launched through the launch page on the demo orchestrator, its imports sent untouched."""

from pathlib import Path

import pytest

from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.emulator.demo import demo_emulator
from app.catalogue import operations
from app.catalogue.loader import catalogue
from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from

SITE = Path(__file__).parent / "corpus" / "site-catalogue"
UNKNOWN_IMPORT = "https://types.unknown.example/tosca/custom_types.yaml"


@pytest.fixture
def app(make_app):
    portal = make_app(ORCHESTRATOR_URL="demo", ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1)
    with portal.app_context():
        text = (SITE / "unknown_types.yaml").read_text()
        revision = operations.save_revision("unknown-types", text, "", "curator", create=True)
        operations.publish("unknown-types", "curator", revision.number)
    return portal


def test_a_template_with_unknown_types_is_launched_end_to_end(app, client, login_as):
    with app.app_context():
        entry = catalogue().get("unknown-types")
        assert entry.parsed.unresolved_imports == [UNKNOWN_IMPORT]
        assert "types were not checked" in entry.parsed.warnings[0].message
    login_as("user", username="ada")

    page = client.get("/catalogue/unknown-types/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    response = client.post(
        "/catalogue/unknown-types/",
        data={
            "csrf_token": csrf_from(html),
            "cores": "4",
            "memory": "8 GB",
            "deployment_name": "Worker for the analysis",
        },
    )
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]

    with app.app_context():
        (deployment,) = db.session.scalars(db.select(Deployment)).all()
        assert deployment.name == "Worker for the analysis" and deployment.uuid
        assert deployment.parameters == {"cores": 4, "memory": "8 GB"}
        (held,) = emulator_of(demo_emulator(app)).store.every()
        assert held.record["uuid"] == deployment.uuid
        assert UNKNOWN_IMPORT in held.template  # imports untouched: the orchestrator decides
    assert client.get(response.headers["Location"]).status_code == 200
