"""Taking over a deployment whose owner's account is disabled: its co-owner, a manager of its
group or an admin becomes its owner, charged for it if it fits their quota and budget, and
refused in words with the numbers (nothing changed) if not; on the timeline with who did it."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from sqlalchemy import select

from app.auth.models import User
from app.clock import set_clock, utcnow
from app.deployments.models import DeploymentShare
from app.extensions import db
from app.launch import taking_over
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP, USER
from app.quotas.operations import usage_of
from app.quotas.usage_marks import account_usage_once
from app.quotas.usage_models import CORE_HOURS, DAY
from app.quotas.usage_totals import usage_per
from tests.launch.take_over_support import World, service_app
from tests.quotas.conftest import charge


@pytest.fixture
def app(make_app, closed_port_url):
    return service_app(make_app, closed_port_url)


@pytest.fixture
def world(app, make_deployment, people_for):
    return World(app, make_deployment, people_for)


def test_a_co_owner_takes_over_on_the_page_and_is_charged_from_then_on(world):
    assert "Take over" not in world.page("carla")  # its owner is active
    assert world.press("carla").status_code == 404
    world.disable_owner()
    html = world.page("carla")
    assert "Take over…" in html and "The account of olga is disabled." in html
    assert "Take over" not in world.page("vera")

    answer = world.press("carla")
    assert answer.status_code == 302
    html = world.page("carla")
    assert "You own Shared cluster now; it is charged to you." in html
    assert "Taken over by carla from olga" in html
    assert "Charged to carla and group physics from now on." in html
    assert "Take over…" not in html
    owner, group, shares, events = world.state()
    assert (owner, group) == ("carla", "physics")
    # Carla's own share is redundant now; the others stay.
    assert shares == [("group", "optics", "viewer"), ("user", "vera", "viewer")]
    assert events[-1] == "taken-over"
    with world.app.app_context():
        event = world.deployment().events[-1]
        assert (event.source, event.actor_id) == ("co-owner", world.ids["carla"])
        assert event.details == {
            "from": "olga",
            "to": "carla",
            "group": "physics",
            "previous_group": "physics",
        }
        assert usage_of(user_id=world.ids["carla"]).gpus == 2
        assert usage_of(user_id=world.ids["olga"]).gpus == 0
        assert usage_of(group_name="physics").gpus == 2
    # The viewer still sees it, now Carla's.
    assert "owned by" in world.page("vera") and "carla" in world.page("vera")


def test_a_manager_of_its_group_takes_it_over_charged_to_their_own_group(world):
    world.disable_owner()
    taken = world.take_over("mario")
    with world.app.app_context():
        assert taken.user_id == world.ids["mario"]
    owner, group, shares, events = world.state()
    assert (owner, group) == ("mario", "biology")
    assert ("user", "carla", "co-owner") in shares and events[-1] == "taken-over"
    with world.app.app_context():
        assert world.deployment().events[-1].source == "manager"
        assert usage_of(group_name="physics").gpus == 0
        assert usage_of(group_name="biology").gpus == 2


def test_a_viewer_an_outsider_and_anyone_while_the_owner_is_active_are_answered_404(world):
    before = world.state()
    for name in ("carla", "mario", "vera", "olga"):
        assert world.press(name).status_code == 404, name
    world.disable_owner()
    assert world.press("vera").status_code == 404
    with world.app.app_context(), pytest.raises(taking_over.NotFound):
        taking_over.take_over(world.user("vera"), world.deployment_id)
    assert world.state() == before


def test_one_that_does_not_fit_is_refused_with_the_numbers_and_nothing_changes(world):
    world.quotas.limit(USER, str(world.ids["carla"]), gpu_models={"A100": "3"})
    world.quotas.hold(world.ids["carla"], charge(gpus=2, gpu_models={"A100": 2}))
    world.disable_owner()
    before = world.state()
    with world.app.app_context():
        holders_before = usage_of(user_id=world.ids["carla"]).gpus
        with pytest.raises(taking_over.DoesNotFit) as refused:
            taking_over.take_over(world.user("carla"), world.deployment_id)
    assert refused.value.message == (
        "This deployment does not fit your quota, so you cannot take it over. It needs 2 A100 "
        "GPUs; you have 1 A100 GPU left of your limit of 3 A100 GPUs. Nothing changed."
    )
    world.press("carla")
    assert "you have 1 A100 GPU left of your limit of 3 A100 GPUs" in world.page("carla")
    assert world.state() == before
    with world.app.app_context():
        assert usage_of(user_id=world.ids["carla"]).gpus == holders_before
        assert usage_of(user_id=world.ids["olga"]).gpus == 2


def test_the_group_pool_it_moves_to_must_have_room(world):
    world.quotas.limit(GROUP, "biology", cores="2")
    world.disable_owner()
    with world.app.app_context(), pytest.raises(taking_over.DoesNotFit) as refused:
        taking_over.take_over(world.user("mario"), world.deployment_id)
    assert "It needs 4 cores; group biology has 2 cores left of its pool of 2 cores." in (
        refused.value.message
    )
    assert world.state()[0] == "olga"


def test_a_budget_it_would_overrun_for_the_rest_of_its_lease_refuses_it(world):
    with world.app.app_context():
        set_budget(None, USER, str(world.ids["carla"]), CORE_HOURS, 1, 30, "term")
    world.disable_owner()
    with world.app.app_context(), pytest.raises(taking_over.OverBudget) as refused:
        taking_over.take_over(world.user("carla"), world.deployment_id)
    assert refused.value.message.startswith(
        "Taking this deployment over would overrun a budget for the rest of its lease: needs "
    )
    assert refused.value.numbers()[0]["budget_hours"] == 1
    assert world.state()[0] == "olga"


def test_an_admin_takes_over_and_nobody_takes_over_twice(world):
    world.disable_owner()
    world.take_over("ada")
    assert world.state()[0] == "ada"
    with world.app.app_context(), pytest.raises(taking_over.NotFound):
        taking_over.take_over(world.user("carla"), world.deployment_id)


def test_yesterdays_use_stays_the_old_owners_and_todays_counts_to_the_new_one(world):
    # Its use is marked from its launch a few minutes ago; the clock then moves on to a
    # morning two days later, when Carla takes it over at 06:30, and reads at 09:30.
    day1 = (utcnow() + timedelta(days=1)).date()
    day2 = day1 + timedelta(days=1)
    now = {"at": datetime.combine(day2, time(6, 30))}
    set_clock(lambda: now["at"])
    world.disable_owner()
    world.take_over("carla")
    now["at"] = datetime.combine(day2, time(9, 30))
    with world.app.app_context():
        account_usage_once(now["at"])
        olga, carla = (
            usage_per(DAY, day1, day2, now=now["at"], user_id=world.ids[name])
            for name in ("olga", "carla")
        )
    # The whole of the first day and 6.5 hours of the second were Olga's; then 3 Carla's.
    assert olga[day1].core_hours == pytest.approx(4 * 24)
    assert olga[day2].core_hours == pytest.approx(4 * 6.5)
    assert olga[day2].gpu_hours == {"A100": pytest.approx(2 * 6.5)}
    assert day1 not in carla or carla[day1].core_hours == 0
    assert carla[day2].core_hours == pytest.approx(4 * 3)
    assert carla[day2].gpu_hours == {"A100": pytest.approx(2 * 3)}
    with world.app.app_context():
        physics = usage_per(DAY, day2, day2, now=now["at"], group_name="physics")
    assert physics[day2].core_hours == pytest.approx(4 * 9.5)


def test_the_shares_left_are_the_others_only(world):
    world.disable_owner()
    world.take_over("carla")
    with world.app.app_context():
        rows = db.session.scalars(
            select(DeploymentShare.name).where(
                DeploymentShare.deployment_id == world.deployment_id,
                DeploymentShare.user_id == world.ids["carla"],
            )
        ).all()
    assert rows == []


def test_the_words_are_italian_for_an_italian_reader(world, app):
    world.disable_owner()
    with app.app_context():
        db.session.get(User, world.ids["carla"]).locale = "it"
        db.session.commit()
    html = world.page("carla")
    assert "Prendi in carico…" in html
    world.press("carla")
    assert "Preso in carico da carla al posto di olga" in world.page("carla")
