"""Usage over time for scripts: per day and in total, seen by whom it concerns."""

from datetime import datetime, timedelta

import pytest

from app.clock import set_clock
from app.deployments.models import Deployment
from app.extensions import db
from tests.quotas.conftest import charge, new_deployment

NOW = datetime(2026, 11, 20, 12, 0)


@pytest.fixture
def at():
    moved = {"now": NOW - timedelta(days=2)}
    set_clock(lambda: moved["now"])
    return moved


def hold(app, user_id, charged, group=None):
    with app.app_context():
        deployment = new_deployment(user_id, group_name=group)
        deployment.status, deployment.charge = "ready", charged
        db.session.add(deployment)
        db.session.commit()
        return deployment.id


def end(app, deployment_id):
    with app.app_context():
        db.session.get(Deployment, deployment_id).status = "deleted"
        db.session.commit()


def test_a_person_reads_their_own_use_per_day_and_in_total(callers, app, at):
    ada = callers("ada")
    held = hold(app, ada.user_id, charge(cores=4, gpus=2, gpu_models={"A100": 2}), "physics")
    at["now"] = NOW - timedelta(days=1, hours=6)  # 19 November 06:00: 18 hours
    end(app, held)
    at["now"] = NOW
    body = ada.get("/api/v1/usage?from=2026-11-01&to=2026-11-30").get_json()
    assert body["user"] == "ada" and body["group"] is None
    assert (body["from"], body["to"]) == ("2026-11-01", "2026-11-30")
    days = {day["date"]: day for day in body["days"]}
    assert list(days) == ["2026-11-18", "2026-11-19"]
    assert days["2026-11-18"]["gpu_hours_by_model"] == {"A100": 24.0}
    assert days["2026-11-19"]["core_hours"] == 24.0
    assert body["total"]["gpu_hours"] == 36.0
    assert body["total"]["core_hours"] == 72.0
    assert body["total"]["gpu_hours_by_model"] == {"A100": 36.0}


def test_a_group_is_seen_by_its_members_and_operators_not_by_others(callers, app, at):
    ada, bob = callers("ada"), callers("bob")
    eve = callers("eve", groups=("chemistry",))
    root = callers("root", admin=True, groups=())
    hold(app, ada.user_id, charge(cores=1), "physics")
    hold(app, bob.user_id, charge(cores=2), "physics")
    at["now"] = NOW
    query = "/api/v1/usage?group=physics&from=2026-11-18&to=2026-11-20"
    for reader in (ada, root):
        body = reader.get(query).get_json()
        assert body["group"] == "physics" and body["total"]["core_hours"] == 3 * 48.0
    refused = eve.get(query)
    assert refused.status_code == 403
    assert refused.get_json()["type"].endswith("/forbidden")
    assert bob.get("/api/v1/usage?user=ada").status_code == 403
    assert (
        root.get("/api/v1/usage?user=ada&from=2026-11-18").get_json()["total"]["core_hours"] == 48.0
    )
    only_ada = ada.get(query + "&user=ada").get_json()
    assert only_ada["total"]["core_hours"] == 48.0


def test_a_groups_managers_read_its_usage_though_not_members(callers, app, at):
    ada = callers("ada")
    pi = callers("pi", groups=("physics-pi",))
    chem_pi = callers("chem-pi", groups=())
    with app.app_context():
        from app.auth.local import find_local_user
        from app.auth.managers import name_manager

        name_manager("physics", find_local_user("pi"), "test")
        name_manager("chemistry", find_local_user("chem-pi"), "test")
    hold(app, ada.user_id, charge(cores=2), "physics")
    at["now"] = NOW
    query = "/api/v1/usage?group=physics&from=2026-11-18&to=2026-11-20"
    body = pi.get(query).get_json()
    assert body["group"] == "physics" and body["total"]["core_hours"] == 2 * 48.0
    refused = chem_pi.get(query)
    assert refused.status_code == 403
    assert chem_pi.get("/api/v1/usage?group=chemistry").status_code == 200


@pytest.mark.parametrize(
    "query", ["from=2026-13-01", "from=2026-11-20&to=2026-11-01", "from=2020-01-01&to=2026-11-01"]
)
def test_a_bad_stretch_of_days_is_400(callers, query):
    answer = callers("ada").get(f"/api/v1/usage?{query}")
    assert answer.status_code == 400 and answer.get_json()["errors"]


def test_reading_usage_needs_the_quota_scope(callers):
    ada = callers("ada", scopes=("deployments:read",))
    assert ada.get("/api/v1/usage").status_code == 403
