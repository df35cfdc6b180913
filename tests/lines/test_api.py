"""The line through the API: 201 when a request fits now, 202 WAITING with its place when it
waits, can_wait on an over-quota answer, GET with the place, DELETE leaving the line."""

import pytest
from sqlalchemy import func, select

from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from app.launch.admission import admit_once
from app.lines.models import LineEntry
from app.quotas.editing import parse_limit, set_limits
from tests.api.conftest import Callers
from tests.lines.conftest import GPU_SIDECAR, GPU_TEMPLATE


@pytest.fixture
def portal(make_app):
    app = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        LAUNCHES_PER_MINUTE=0,
    )
    with app.app_context():
        save_revision("gpu-machine", GPU_TEMPLATE, GPU_SIDECAR, "test", create=True)
        publish("gpu-machine", "test")
        set_limits(None, "group", "physics", {"gpus": parse_limit("gpus", "2")}, "test")
    return app


def launch(caller, gpus=1, **extra):
    body = {
        "template": "gpu-machine",
        "parameters": {"num_gpus": gpus},
        "group": "physics",
        **extra,
    }
    return caller.post("/api/v1/deployments", json=body)


def count(app, status):
    with app.app_context():
        return db.session.scalar(select(func.count()).where(Deployment.status == status))


def test_a_request_that_fits_now_is_launched_as_usual_with_201(portal):
    ada = Callers(portal)("ada")
    answer = launch(ada, wait=True)
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["status"] != "WAITING"
    assert answer.get_json()["queue"] is None


def test_a_request_short_of_held_gpus_waits_with_202_and_its_place(portal):
    callers = Callers(portal)
    ada, bea = callers("ada"), callers("bea")
    assert launch(ada, gpus=2).status_code == 201
    first = launch(bea, wait=True)
    second = launch(ada, wait=True)
    assert first.status_code == 202, first.get_json()
    body = first.get_json()
    assert body["status"] == "WAITING"
    assert body["queue"]["position"] == 1
    assert body["queue"]["line"] == "group:physics:gpus:"
    assert "group physics" in body["queue"]["line_words"]
    assert body["queue"]["expires_at"]
    assert second.get_json()["queue"]["position"] == 2
    assert first.headers["Location"].endswith(f"/api/v1/deployments/{body['id']}")
    # Read again, and in the list.
    again = bea.get(f"/api/v1/deployments/{body['id']}").get_json()
    assert again["status"] == "WAITING" and again["queue"]["position"] == 1
    listed = bea.get("/api/v1/deployments").get_json()["items"]
    assert [item["queue"]["position"] for item in listed] == [1]
    assert count(portal, "WAITING") == 2


def test_without_wait_an_over_quota_answer_says_whether_waiting_is_possible(portal):
    callers = Callers(portal)
    ada = callers("ada")
    assert launch(ada, gpus=2).status_code == 201
    held = launch(ada)
    assert held.status_code == 409
    assert held.get_json()["can_wait"] is True
    never = launch(ada, gpus=3)
    assert never.status_code == 409
    assert never.get_json()["can_wait"] is False
    assert count(portal, "WAITING") == 0


def test_a_request_over_the_limit_by_itself_is_refused_even_when_asked_to_wait(portal):
    ada = Callers(portal)("ada")
    answer = launch(ada, gpus=3, wait=True)
    assert answer.status_code == 409
    problem = answer.get_json()
    assert problem["type"].endswith("/problems/over-quota")
    assert "cannot wait in line" in problem["detail"]
    assert problem["can_wait"] is False
    assert count(portal, "WAITING") == 0


def test_delete_leaves_the_line_and_nothing_is_launched(portal):
    ada = Callers(portal)("ada")
    assert launch(ada, gpus=2).status_code == 201
    waiting = launch(ada, wait=True).get_json()
    answer = ada.delete(f"/api/v1/deployments/{waiting['id']}")
    assert answer.status_code == 202
    assert answer.get_json()["status"] == "NOT_LAUNCHED"
    assert ada.get(f"/api/v1/deployments/{waiting['id']}").status_code == 404
    with portal.app_context():
        assert db.session.scalar(select(func.count()).select_from(LineEntry)) == 0
        assert admit_once().waiting == 0


def test_wait_must_be_true_or_false(portal):
    ada = Callers(portal)("ada")
    answer = launch(ada, wait="soon")
    assert answer.status_code == 400
    assert "wait" in answer.get_json()["errors"]
    assert count(portal, "WAITING") == 0
