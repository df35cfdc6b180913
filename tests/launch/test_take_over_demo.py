"""Where each person calls the orchestrator as themselves (the demo orchestrator), only a
deployment's maker may act on it there: another owner could never delete it, so a take-over
is refused in words, and it runs on to its lease's end as it is."""

import pytest

from app.launch import taking_over
from tests.launch.take_over_support import World


def test_where_each_person_calls_as_themselves_it_cannot_change_hands(
    app, make_deployment, people_for
):
    world = World(app, make_deployment, people_for)
    world.disable_owner()
    assert "Take over…" in world.page("carla")
    before = world.state()
    with app.app_context(), pytest.raises(taking_over.CannotTakeOver) as refused:
        taking_over.take_over(world.user("carla"), world.deployment_id)
    assert refused.value.message == (
        "This deployment was made in its owner's own name at the place it runs, and only they "
        "may act on it there, so it cannot be taken over; it ends with its lease. Nothing "
        "changed."
    )
    world.press("carla")
    assert "only they may act on it there" in world.page("carla").replace("&#39;", "'")
    assert world.state() == before
