"""Templates, the deployments list with its filters and paging, and the quota."""

from datetime import datetime, timedelta

import pytest

from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.editing import set_limits


def test_templates_lists_what_the_caller_may_launch(callers):
    ada = callers("ada")
    body = ada.get("/api/v1/templates").get_json()
    assert {item["slug"] for item in body["items"]} == {"test-notebook", "secret-notebook"}
    assert body["items"][0]["name"] == "Test notebook"


def test_one_template_describes_its_inputs(callers):
    ada = callers("ada")
    body = ada.get("/api/v1/templates/secret-notebook").get_json()
    inputs = {item["name"]: item for item in body["inputs"]}
    assert inputs["num_cpus"] == {
        **inputs["num_cpus"],
        "type": "integer",
        "label": "Cores",
        "default": 1,
        "required": False,
        "secret": False,
    }
    assert inputs["jupyter_password"]["secret"] is True
    assert inputs["jupyter_password"]["generated"] is True
    assert inputs["jupyter_password"]["required"] is False
    assert {o["name"]: o["secret"] for o in body["outputs"]}["node_creds"] is True
    missing = ada.get("/api/v1/templates/nope")
    assert missing.status_code == 404
    assert missing.get_json()["detail"].startswith("There is no such application")


def _store(app, user_id: int, count: int, status="ready", name="d", start=None):
    start = start or datetime(2026, 1, 1)
    with app.app_context():
        for index in range(count):
            db.session.add(
                Deployment(
                    user_id=user_id,
                    name=f"{name}-{index:03d}",
                    template_slug="test-notebook",
                    status=status,
                    created_at=start + timedelta(minutes=index),
                    reference_secret=f"s-{user_id}-{name}-{index}",
                    charge={},
                    parameters={},
                    outputs={},
                )
            )
        db.session.commit()


def test_the_list_pages_from_1_with_first_prev_next_last_links(callers, app):
    ada = callers("ada")
    _store(app, ada.user_id, 12)
    first = ada.get("/api/v1/deployments?size=5").get_json()
    assert (first["page"], first["size"], first["total"], first["pages"]) == (1, 5, 12, 3)
    assert [item["name"] for item in first["items"]][:2] == ["d-011", "d-010"]
    assert first["links"]["prev"] is None
    assert "page=2" in first["links"]["next"] and "page=3" in first["links"]["last"]
    third = ada.client.get(first["links"]["last"], headers=ada.headers()).get_json()
    assert [item["name"] for item in third["items"]] == ["d-001", "d-000"]
    assert third["links"]["next"] is None and "page=2" in third["links"]["prev"]


def test_the_list_sorts_and_filters_as_my_deployments_does(callers, app):
    ada = callers("ada")
    _store(app, ada.user_id, 3, name="ready")
    _store(app, ada.user_id, 2, status="failed", name="broken")
    oldest = ada.get("/api/v1/deployments?sort=createdAt,asc&size=1").get_json()
    assert oldest["items"][0]["name"] in ("ready-000", "broken-000")
    by_name = ada.get("/api/v1/deployments?sort=name,asc").get_json()
    assert [i["name"] for i in by_name["items"]][0] == "broken-000"
    failed = ada.get("/api/v1/deployments?status=failed").get_json()
    assert {i["name"] for i in failed["items"]} == {"broken-000", "broken-001"}
    words = ada.get("/api/v1/deployments?q=ready-002").get_json()
    assert [i["name"] for i in words["items"]] == ["ready-002"]


@pytest.mark.parametrize(
    "query, field",
    [("page=0", "page"), ("size=1000", "size"), ("sort=colour", "sort"), ("status=odd", "status")],
)
def test_bad_paging_values_are_400_naming_the_value(callers, query, field):
    ada = callers("ada")
    answer = ada.get(f"/api/v1/deployments?{query}")
    assert answer.status_code == 400
    assert field in answer.get_json()["errors"]


def test_the_quota_shows_usage_against_limits(callers, app):
    ada = callers("ada")
    with app.app_context():
        set_limits(None, "user", str(ada.user_id), {"cores": 8}, "test")
    ada.launch(parameters={"num_cpus": 2, "jupyter_password": "x"})
    body = ada.get("/api/v1/quota").get_json()
    cores = next(bar for bar in body["usage"]["bars"] if bar["resource"] == "cores")
    assert (cores["used"], cores["limit"]) == (2, 8)
    assert [holder["name"] for holder in body["holders"]] == ["api-1"]


def test_an_unknown_api_address_is_a_problem_not_a_page(callers):
    ada = callers("ada")
    answer = ada.get("/api/v1/nothing")
    assert answer.status_code == 404
    assert answer.mimetype == "application/problem+json"
    wrong_method = ada.client.put("/api/v1/templates", headers=ada.headers())
    assert wrong_method.status_code == 405
    assert wrong_method.get_json()["type"].endswith("/problems/method-not-allowed")
