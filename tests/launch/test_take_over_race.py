"""Takers pressing Take over at the same moment, from several processes sharing one database
as several hosts would: exactly one becomes the owner, the others are told someone else
took it, and the timeline has one take-over."""

import pytest

from app.deployments.models import Deployment
from app.extensions import db
from tests.launch import take_over_race_worker
from tests.launch.take_over_support import World, service_app
from tests.processes import race

TAKERS = ("carla", "mario", "ada", "carla")


@pytest.fixture
def app(make_app, closed_port_url, database_url):
    return service_app(make_app, closed_port_url, SQLALCHEMY_DATABASE_URI=database_url)


def test_takers_at_the_same_moment_leave_exactly_one_owner(
    app, make_deployment, people_for, tmp_path
):
    world = World(app, make_deployment, people_for)
    world.disable_owner()
    config = dict(app.config)  # the same database, orchestrator and service identity
    arguments = [
        (config, str(tmp_path / "instance"), world.ids[name], world.deployment_id)
        for name in TAKERS
    ]
    outcomes = race(
        take_over_race_worker.run,
        arguments,
        parties=len(TAKERS),
        outcomes=len(TAKERS),
        method="spawn",
    )
    taken = [who for what, who in outcomes if what == "taken"]
    assert len(taken) == 1, outcomes
    refused = [(what, words) for what, words in outcomes if what != "taken"]
    assert set(refused) <= {
        ("TakenAlready", "Someone else took this deployment over a moment ago; nothing changed."),
        ("NotFound", "There is no such deployment among yours."),
    }, outcomes
    with app.app_context():
        deployment = db.session.get(Deployment, world.deployment_id)
        assert deployment.user_id == taken[0]
        assert [e.kind for e in deployment.events].count("taken-over") == 1
