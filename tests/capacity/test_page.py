"""Operators see every site's free resources per GPU model, its source, age and problem, on
the capacity page (in both languages) and in /metrics; researchers do not see the page."""

from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.capacity.refresh import refresh_due
from app.clock import use_clock

TOKEN = "scrape-" + "t" * 32


@pytest.fixture
def portal(capacity_app, world):
    app = capacity_app("cluster-stats", METRICS_TOKEN=TOKEN)
    with app.app_context():
        from app.capacity.operations import add_site

        add_site("UNREAD-SITE", "paas", "provider-UNREAD")
        refresh_due()
        world.faults.refuse = True
        refresh_due(everything=True)
    return app


def test_operators_see_each_sites_free_gpus_source_age_and_problem(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("operator")
    page = client.get("/capacity/").get_data(as_text=True)
    assert "RECAS-BARI" in page and "4 A100" in page
    assert "cluster-stats" in page
    assert "Last refresh failed" in page and "HTTP 401" in page
    assert "No source has told what this site has free yet." in page
    assert "Stale" not in page


def test_old_figures_are_marked_stale(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("operator")
    later = datetime.now(UTC) + timedelta(hours=2)
    with use_clock(lambda: later):
        page = client.get("/capacity/").get_data(as_text=True)
    assert "Stale" in page and "2 hours ago" in page


def test_the_page_speaks_italian(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("operator")
    page = client.get("/capacity/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Capacità dei siti" in page
    assert "Ultimo aggiornamento non riuscito" in page


def test_researchers_may_not_see_the_capacity_page(portal, people_for):
    client = portal.test_client()
    people_for(portal, client).login_as("user")
    assert client.get("/capacity/").status_code == 403


def _scrape(app) -> dict:
    answer = app.test_client().get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    return {f.name: f for f in text_string_to_metric_families(answer.get_data(as_text=True))}


def test_metrics_give_free_gpus_per_site_and_model_and_the_figures_age(portal):
    later = datetime.now(UTC) + timedelta(minutes=10)
    with use_clock(lambda: later):
        families = _scrape(portal)
    gpus = {
        (s.labels["site"], s.labels["gpu_model"]): s.value
        for s in families["portal_capacity_free_gpus"].samples
    }
    assert gpus == {("RECAS-BARI", "A100"): 4}
    (age,) = families["portal_capacity_age_seconds"].samples
    assert age.labels == {"site": "RECAS-BARI", "source": "cluster-stats"}
    assert age.value >= 600
    problems = {s.labels["problem"]: s.value for s in families["portal_capacity_problem"].samples}
    assert problems == {"refresh_failed": 1, "maintenance": 0}
