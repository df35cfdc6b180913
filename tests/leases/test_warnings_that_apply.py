"""A warning counts only for an end chosen before it: a lease chosen shorter than a warning is
not warned (nor shown amber) at its start, an extend does not bring back warnings whose moment
has passed, and a policy changed after a warning was given colours the countdown by the policy
as it is."""

from datetime import timedelta

from tests.conftest import csrf_from
from tests.launch.test_launch_form import login


def _badge(emulated, deployment_id) -> str:
    page = login(emulated, "ada").get(f"/deployments/{deployment_id}").get_data(as_text=True)
    lease = page[page.index('id="lease"') :]
    return lease[lease.index("data-countdown") - 60 : lease.index("data-countdown")]


def _ready(emulated, leases, duration=None, **policy) -> int:
    leases.policy(**policy)
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada, duration=duration)
    leases.ready(deployment_id)
    return deployment_id


def test_a_lease_shorter_than_a_warning_starts_grey_and_unwarned(emulated, leases, clock):
    # The person chose 8 hours where the default is 2 days and warnings come 1 day before.
    deployment_id = _ready(emulated, leases, 8 * 60, default="2d", max_initial="3d", warn="24h,1h")

    assert leases.expire().warned == 0
    assert "text-bg-secondary" in _badge(emulated, deployment_id)
    clock.move(hours=6, minutes=59)
    assert leases.expire().warned == 0
    assert "text-bg-secondary" in _badge(emulated, deployment_id)
    clock.move(minutes=2)  # 59 min left: the one warning that applies
    assert leases.expire().warned == 1
    assert "text-bg-warning" in _badge(emulated, deployment_id)
    warned = [
        d["before_minutes"] for k, _s, d in leases.events(deployment_id) if k == "lease-warned"
    ]
    assert warned == [60]


def test_the_script_turns_amber_at_the_first_warning_that_applies(emulated, leases):
    deployment_id = _ready(emulated, leases, 8 * 60, default="2d", max_initial="3d", warn="24h,1h")
    page = login(emulated, "ada").get(f"/deployments/{deployment_id}").get_data(as_text=True)
    lease = leases.lease(deployment_id)
    amber = lease.ends_at - timedelta(hours=1)  # the 24 h warning was past at launch
    assert f'data-amber-at="{amber.strftime("%Y-%m-%dT%H:%M:%SZ")}"' in page


def test_an_extend_does_not_bring_back_a_warning_already_past(emulated, leases, clock):
    deployment_id = _ready(
        emulated, leases, default="3h", extend_step="1h", warn="2h,30m", cap="14d"
    )
    clock.move(hours=2, minutes=45)  # both warnings given, 15 minutes left
    assert leases.expire().warned == 1
    client = login(emulated, "ada")
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    client.post(f"/deployments/{deployment_id}/extend", data={"csrf_token": csrf_from(page)})
    assert leases.lease(deployment_id).extends == 1
    # 1 h 15 min left: the 2 h warning's moment passed before this end was chosen.
    assert "text-bg-secondary" in _badge(emulated, deployment_id)
    assert leases.expire().warned == 0
    clock.move(minutes=46)  # 29 min left
    assert leases.expire().warned == 1
    assert "text-bg-warning" in _badge(emulated, deployment_id)


def test_a_warning_given_under_an_older_policy_does_not_colour_the_countdown(
    emulated, leases, clock
):
    deployment_id = _ready(emulated, leases, default="1d", warn="12h")
    clock.move(hours=13)  # 11 h left: warned under this policy
    assert leases.expire().warned == 1
    leases.policy(warn="1h")
    assert "text-bg-secondary" in _badge(emulated, deployment_id)
    clock.move(hours=10, minutes=1)
    assert "text-bg-warning" in _badge(emulated, deployment_id)
