"""A launch is charged its projected use (its rate for its lease) against what is left of the
budgets of its person and group: within budget it starts; over, it is refused with the numbers
through the API (409 ``budget``), the dry run, ``rcp launch --dry-run`` and the launch form;
when the budget renews before the line's longest wait it may wait in line instead; an extend
that would overrun a budget is refused the same way."""

import re
from datetime import datetime

import pytest
from click.testing import CliRunner

from app.auth.models import User
from app.backends.paas.emulator.demo import WSGITransport
from app.cli_client import main
from app.cli_client.api import Portal
from app.clock import use_clock
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.launch.admission import admit_once
from app.leases.editing import parse_field, set_policy
from app.leases.operations import extend
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP
from app.quotas.usage_models import CALENDAR_MONTH, CORE_HOURS
from app.sync.passes import sync_once
from tests.clocks import Clock
from tests.conftest import People, csrf_from

PASSWORD = "s3cret-passw0rd"
PROBLEM = "application/problem+json"


@pytest.fixture
def clock():
    at = Clock(datetime(2026, 11, 10, 12, 0))
    with use_clock(at):
        yield at


def _setup(app, core_hours: float, **lease):
    with app.app_context():
        changes = {key: parse_field(key, text) for key, text in lease.items()}
        set_policy(None, "test-notebook", None, changes, "course")
        set_budget(None, GROUP, "physics", CORE_HOURS, core_hours, CALENDAR_MONTH, "term")


def _body(name: str, cpus: int = 2, **extra) -> dict:
    return {
        "template": "test-notebook",
        "name": name,
        "parameters": {"num_cpus": cpus, "jupyter_password": PASSWORD},
        **extra,
    }


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(db.select(db.func.count(Deployment.id)))


def _rcp(app, caller, monkeypatch):
    def portal() -> Portal:
        found = Portal("http://portal.test", caller.token)
        found.session.mount("http://portal.test", WSGITransport(app))
        return found

    monkeypatch.setattr(main, "_portal", portal)
    args = ["launch", "test-notebook", "--set", "num_cpus=2"]
    return CliRunner().invoke(
        main.cli, [*args, "--set", f"jupyter_password={PASSWORD}", "--dry-run"]
    )


def _form(app, username: str):
    client = app.test_client()
    People(app, client).login(username)
    page = client.get("/catalogue/test-notebook/")
    data = {
        "csrf_token": csrf_from(page.get_data(as_text=True)),
        "num_cpus": "2",
        "jupyter_password": PASSWORD,
    }
    return client, data


def test_a_launch_within_the_groups_budget_starts_and_the_dry_run_shows_the_budget(
    app, callers, clock
):
    _setup(app, 100, default="10h")
    ada = callers("ada")
    dry = ada.post("/api/v1/deployments?dry_run=true", json=_body("a")).get_json()
    assert dry["outcome"] == "start" and dry["binding"] is None
    [entry] = dry["budget"]["budgets"]
    assert dry["budget"]["fits"] is True and dry["budget"]["refusal"] is None
    assert (entry["owner"], entry["resource"], entry["period"]) == ("physics", "cores", "month")
    assert (entry["needed_hours"], entry["left_hours"], entry["renews_on"]) == (
        20.0,
        100.0,
        "2026-12-01",
    )
    assert ada.post("/api/v1/deployments", json=_body("a")).status_code == 201


def test_over_the_budget_the_api_the_dry_run_rcp_and_the_form_refuse_with_the_numbers(
    app, callers, clock, monkeypatch
):
    _setup(app, 30, default="10h")
    ada, bea = callers("ada"), callers("bea")
    assert bea.post("/api/v1/deployments", json=_body("first")).status_code == 201
    sentence = "needs 20 core-hours; 10 left in group physics this month, renewed on 1 December"

    dry = ada.post("/api/v1/deployments?dry_run=true", json=_body("second")).get_json()
    assert (dry["outcome"], dry["kind"], dry["binding"]) == ("refuse", "budget", "budget")
    assert dry["fit"]["fits"] is True  # the quotas let it: the budget is what binds
    assert dry["budget"]["fits"] is False and sentence in dry["budget"]["refusal"]
    [entry] = dry["budget"]["budgets"]
    assert (entry["needed_hours"], entry["committed_hours"], entry["left_hours"]) == (
        20.0,
        20.0,
        10.0,
    )

    result = _rcp(app, ada, monkeypatch)
    assert result.exit_code == 3, result.output
    assert "Does NOT fit a budget:" in result.output and sentence in result.output
    assert "Held back by: budget" in result.output

    before = _count(app)
    refused = ada.post("/api/v1/deployments", json=_body("second"))
    problem = refused.get_json()
    assert refused.status_code == 409 and refused.mimetype == PROBLEM, problem
    assert problem["type"].endswith("/budget") and sentence in problem["detail"]
    assert [(b["needed_hours"], b["left_hours"]) for b in problem["budget"]] == [(20.0, 10.0)]
    assert problem["can_wait"] is False
    assert _count(app) == before

    client, data = _form(app, "ada")
    box = client.post("/catalogue/test-notebook/summary", data=data).get_data(as_text=True)
    assert 'data-launchable="no"' in box and 'data-binding="budget"' in box
    assert sentence in box
    page = client.post("/catalogue/test-notebook/", data={**data, "name": "by-form"})
    assert page.status_code == 409 and sentence in page.get_data(as_text=True)
    assert _count(app) == before


def test_over_a_budget_that_renews_before_the_longest_wait_it_may_wait_in_line(app, callers, clock):
    clock.at = datetime(2026, 11, 29, 12, 0)  # renewed in 36 hours; the line waits up to 3 days
    _setup(app, 30, default="10h")
    ada, bea = callers("ada"), callers("bea")
    assert bea.post("/api/v1/deployments", json=_body("first")).status_code == 201
    dry = ada.post("/api/v1/deployments?dry_run=true", json=_body("second")).get_json()
    assert (dry["outcome"], dry["kind"], dry["can_wait"]) == ("wait", "budget", True)
    refused = ada.post("/api/v1/deployments", json=_body("second"))
    assert refused.status_code == 409 and refused.get_json()["can_wait"] is True
    waiting = ada.post("/api/v1/deployments", json=_body("second", wait=True))
    assert waiting.status_code == 202, waiting.get_json()
    assert waiting.get_json()["status"] == "WAITING"
    waiting_id = waiting.get_json()["id"]

    # Before the renewal the admission pass leaves it in line; after it, it starts.
    with app.app_context():
        assert admit_once().admitted == 0
    assert _status(app, waiting_id) == Status.WAITING
    with app.app_context():
        first = db.session.scalar(db.select(Deployment).where(Deployment.name == "first"))
        first.status = Status.DELETED  # what it held is handed back, its lease ends with it
        db.session.commit()
    clock.at = datetime(2026, 12, 1, 1, 0)
    with app.app_context():
        assert admit_once().admitted == 1
    assert _status(app, waiting_id) != Status.WAITING


def _status(app, deployment_id: int) -> str:
    with app.app_context():
        return db.session.get(Deployment, deployment_id).status


def test_a_budget_never_renewing_in_time_may_not_wait(app, callers, clock):
    _setup(app, 30, default="10h")
    ada, bea = callers("ada"), callers("bea")
    assert bea.post("/api/v1/deployments", json=_body("first")).status_code == 201
    asked = ada.post("/api/v1/deployments", json=_body("second", wait=True))
    assert asked.status_code == 409 and asked.get_json()["type"].endswith("/budget")
    assert "renews before the longest wait" in asked.get_json()["detail"]


def _ready(app, caller, clock) -> int:
    answer = caller.post("/api/v1/deployments", json=_body("leased"))
    assert answer.status_code == 201, answer.get_json()
    deployment_id = answer.get_json()["id"]
    for _ in range(5):
        clock.move(minutes=1)
        with app.app_context():
            sync_once()
        body = caller.get(f"/api/v1/deployments/{deployment_id}").get_json()
        if body["status"] == "CREATE_COMPLETE":
            return deployment_id
    raise AssertionError(f"still {body['status']}")


def test_an_extend_that_would_overrun_the_budget_is_refused_with_the_numbers(app, callers, clock):
    # 2 cores for 3 hours (6 core-hours) fits a budget of 12; 5 hours more (10) does not.
    _setup(app, 12, default="3h", extend_step="5h", max_extends="2")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)
    refused = ada.post(f"/api/v1/deployments/{deployment_id}/lease", json={})
    problem = refused.get_json()
    assert refused.status_code == 409 and problem["type"].endswith("/budget"), problem
    assert "needs 10 core-hours" in problem["detail"]
    [entry] = problem["budget"]
    assert entry["needed_hours"] == 10.0 and entry["left_hours"] < 10.0
    lease = ada.get(f"/api/v1/deployments/{deployment_id}").get_json()["lease"]
    assert lease["extends_used"] == 0  # nothing changed: it runs on to its current end
    # An operator's override keeps its power.
    root = callers.user("root", groups=(), admin=True)
    with app.app_context():
        person = db.session.get(User, root)
        lease = extend(person, deployment_id, override=True, by=300, reason="conference demo")
        assert lease.extends == 1


def test_a_bigger_budget_lets_the_same_extend_through(app, callers, clock):
    _setup(app, 100, default="3h", extend_step="5h", max_extends="2")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)
    extended = ada.post(f"/api/v1/deployments/{deployment_id}/lease", json={})
    assert extended.status_code == 200, extended.get_json()
    assert re.match(r"\d{4}-", extended.get_json()["lease"]["ends_at"])
