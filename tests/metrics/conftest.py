"""A portal on the demo orchestrator with one published template, and a scrape helper that
reads /metrics with the Prometheus client's own parser."""

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.extensions import db
from app.launch.request import LaunchRequest
from app.launch.workflow import launch
from tests.deployments.conftest import PARAMETERS, SIDECAR, TEMPLATE

SLUG = "test-notebook"


@pytest.fixture
def app(make_app):
    portal = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        DEPLOYMENTS_RECHECK_SECONDS=0,
        METRICS_TOKEN="scrape-" + "t" * 32,
    )
    with portal.app_context():
        save_revision(SLUG, TEMPLATE, SIDECAR, "test", create=True)
        publish(SLUG, "test")
    return portal


@pytest.fixture
def launch_as(app):
    """Launch the test template for ``user_id`` (groups as given); returns the deployment id."""

    def run(user_id: int, **options) -> int:
        with app.app_context():
            user = db.session.get(User, user_id)
            return launch(
                LaunchRequest(user, catalogue().get(SLUG), dict(PARAMETERS), **options)
            ).id

    return run


class Scrape:
    """One scrape, parsed: ``value(name, **labels)`` is the sample's value (0 when absent)."""

    def __init__(self, text: str):
        self.families = {f.name: f for f in text_string_to_metric_families(text)}

    def samples(self, name: str):
        for family in self.families.values():
            for sample in family.samples:
                if sample.name == name:
                    yield sample

    def value(self, name: str, **labels) -> float:
        found = [s.value for s in self.samples(name) if _matches(s.labels, labels)]
        assert len(found) <= 1, f"{name}{labels} names {len(found)} series"
        return found[0] if found else 0.0

    def total(self, name: str, **labels) -> float:
        """The sum over every series of ``name`` that has ``labels``."""
        return sum(s.value for s in self.samples(name) if _matches(s.labels, labels))


def _matches(have: dict, want: dict) -> bool:
    return all(have.get(key) == value for key, value in want.items())


@pytest.fixture
def scrape(app):
    """Read /metrics as a loopback client and parse it."""

    def run() -> Scrape:
        answer = app.test_client().get("/metrics")
        assert answer.status_code == 200, answer.text
        return Scrape(answer.text)

    return run
