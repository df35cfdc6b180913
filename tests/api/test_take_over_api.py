"""``POST /api/v1/deployments/{id}/take-over`` and ``rcp take-over``: the take-over of the
deployment's page for scripts, asked by every kind of person once its owner's account is
disabled; its refusals are the API's problems with their numbers."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from app.backends.paas.emulator.demo import WSGITransport
from app.cli_client import main
from app.cli_client.api import Portal
from app.extensions import db
from app.quotas.budgets import set_budget
from app.quotas.models import USER
from app.quotas.usage_models import CORE_HOURS
from tests.api.conftest import Callers
from tests.deployments.conftest import (  # noqa: F401  (fixtures, found by name)
    closed_port_url,
    make_deployment,
)
from tests.launch.take_over_support import World, service_app
from tests.quotas.conftest import charge

# Who may take it over once its owner is disabled (the words): its co-owner, a manager
# of its group, an admin; a viewer, a stranger and an operator may not.
TAKERS = {"carla": "co-owner", "mario": "manager", "ada": "admin"}
REFUSED = ("vera", "otto", "oscar")


@pytest.fixture
def app(make_app, closed_port_url):  # noqa: F811
    return service_app(make_app, closed_port_url)


@pytest.fixture
def world(app, make_deployment, people_for):  # noqa: F811
    found = World(app, make_deployment, people_for)
    callers = Callers(app)
    found.tokens = {name: callers.token_for(user_id) for name, user_id in found.ids.items()}
    return found


def take_over(world, name: str, deployment_id: int | None = None):
    path = f"/api/v1/deployments/{deployment_id or world.deployment_id}/take-over"
    headers = {"Authorization": f"Bearer {world.tokens[name]}"}
    return world.app.test_client().post(path, headers=headers)


def test_every_kind_of_person_is_answered_by_the_one_rule_once_the_owner_is_disabled(world):
    for name in (*TAKERS, *REFUSED):
        assert take_over(world, name).status_code == 404, name  # its owner is active
    world.disable_owner()
    for name in REFUSED:
        answer = take_over(world, name)
        assert answer.status_code == 404, name
        assert answer.get_json()["type"].endswith("/problems/not-found")
    assert world.state()[0] == "olga"
    for name, relation in TAKERS.items():
        deployment_id = world.fresh()
        answer = take_over(world, name, deployment_id)
        assert answer.status_code == 200, (name, answer.get_json())
        body = answer.get_json()
        assert (body["id"], body["owner"], body["access"]) == (deployment_id, name, "owner")
        taken = body["timeline"][-1]
        assert (taken["kind"], taken["actor"]) == ("taken-over", name)
        with world.app.app_context():
            event = db.session.get(type(world.deployment()), deployment_id).events[-1]
            assert event.source == relation
        # Taken, it is theirs: nobody takes it over again.
        for again in TAKERS:
            assert take_over(world, again, deployment_id).status_code == 404


def test_the_page_route_answers_the_same(world):
    assert world.press("carla").status_code == 404
    world.disable_owner()
    for name in REFUSED:
        assert world.press(name).status_code == 404
    assert world.press("mario").status_code == 302
    assert world.state()[:2] == ("mario", "biology")


def test_over_quota_is_a_409_with_the_numbers_and_nothing_changes(world):
    world.quotas.limit(USER, str(world.ids["carla"]), gpu_models={"A100": "3"})
    world.quotas.hold(world.ids["carla"], charge(gpus=2, gpu_models={"A100": 2}))
    world.disable_owner()
    before = world.state()
    answer = take_over(world, "carla")
    assert answer.status_code == 409
    body = answer.get_json()
    assert body["type"].endswith("/problems/over-quota")
    assert (
        "It needs 2 A100 GPUs; you have 1 A100 GPU left of your limit of 3 A100 GPUs."
        in (body["detail"])
    )
    mine = body["fit"]["assessments"][0]
    a100 = next(bar for bar in mine["bars"] if bar["model"] == "A100")
    assert (a100["used"], a100["request"], a100["limit"], a100["fits"]) == (2, 2, 3, False)
    assert body["fit"]["group"] == "physics"
    assert world.state() == before


def test_over_budget_is_a_409_budget_with_each_budgets_numbers(world):
    with world.app.app_context():
        set_budget(None, USER, str(world.ids["carla"]), CORE_HOURS, 1, 30, "term")
    world.disable_owner()
    answer = take_over(world, "carla")
    assert answer.status_code == 409
    body = answer.get_json()
    assert body["type"].endswith("/problems/budget")
    assert body["detail"].startswith("Taking this deployment over would overrun a budget")
    (numbers,) = body["budget"]
    assert (numbers["scope"], numbers["budget_hours"], numbers["fits"]) == ("user", 1, False)
    assert numbers["needed_hours"] > 1
    assert world.state()[0] == "olga"


def test_it_needs_the_write_scope_and_is_in_the_openapi_document(world):
    callers = Callers(world.app)
    reader = callers.token_for(world.ids["carla"], scopes=("deployments:read",))
    world.disable_owner()
    answer = world.app.test_client().post(
        f"/api/v1/deployments/{world.deployment_id}/take-over",
        headers={"Authorization": f"Bearer {reader}"},
    )
    assert answer.status_code == 403
    assert answer.get_json()["type"].endswith("/problems/missing-scope")
    document = world.app.test_client().get("/api/v1/openapi.json").get_json()
    route = document["paths"]["/deployments/{deployment_id}/take-over"]["post"]
    assert route["security"] == [{"token": ["deployments:write"]}]
    assert {"200", "404", "409"} <= set(route["responses"])
    assert "disabled" in route["description"]


def test_rcp_take_over_prints_the_new_owner_or_the_refusal(world, monkeypatch):
    def run(name, *args):
        def portal() -> Portal:
            found = Portal("http://portal.test", world.tokens[name])
            found.session.mount("http://portal.test", WSGITransport(world.app))
            return found

        monkeypatch.setattr(main, "_portal", portal)
        result = CliRunner().invoke(main.cli, list(args))
        return result.exit_code, result.output

    code, out = run("carla", "take-over", str(world.deployment_id))
    assert code != 0 and "There is no such deployment among yours." in out
    world.quotas.limit(USER, str(world.ids["mario"]), cores="1")
    world.disable_owner()
    code, out = run("mario", "take-over", str(world.deployment_id))
    assert code != 0 and "It needs 4 cores; you have 1 core left of your limit of 1 core." in out
    code, out = run("carla", "take-over", str(world.deployment_id))
    assert code == 0, out
    assert out.strip() == (
        f"You own Shared cluster ({world.deployment_id}) now; it is charged to you and group "
        "physics."
    )
    code, out = run("carla", "show", str(world.deployment_id), "--json")
    assert code == 0 and '"owner": "carla"' in out
