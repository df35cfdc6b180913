"""Extending a lease: within the policy for the owner, with the reason when it is refused, and
past the policy for operators with a reason (the owner is told through the timeline)."""

from datetime import timedelta

import pytest

from app.auth.models import User
from app.extensions import db
from app.leases.errors import ExtendRefused, InvalidPolicy
from app.leases.operations import extend
from app.leases.policy import resolve


def _extend(emulated, actor_id, deployment_id, **options):
    with emulated.app.app_context():
        lease = extend(db.session.get(User, actor_id), deployment_id, **options)
        db.session.refresh(lease)
        db.session.expunge(lease)
        return lease


def _refusal(emulated, actor_id, deployment_id) -> str:
    with pytest.raises(ExtendRefused) as refused:
        _extend(emulated, actor_id, deployment_id)
    return refused.value.message


@pytest.fixture
def running(emulated, leases):
    """A running lease of 1 day, extendable by 1 day within 2 days' cap, 1 extend, the last
    2 hours only."""
    leases.policy(default="1d", extend_step="1d", max_extends="1", cap="2d", extend_window="2h")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    return ada, deployment_id


def test_extends_open_only_near_the_end(emulated, leases, clock, running):
    ada, deployment_id = running
    assert _refusal(emulated, ada, deployment_id) == (
        "This lease cannot be extended now: extends open 2 hours before the end."
    )
    clock.move(hours=23)
    before = leases.lease(deployment_id).ends_at

    lease = _extend(emulated, ada, deployment_id)

    assert lease.ends_at - before == timedelta(days=1) and lease.extends == 1
    [(kind, source, details)] = leases.events(deployment_id)[-1:]
    assert (kind, source) == ("lease-extended", "user")
    assert details["past_cap"] is False and details["reason"] is None
    assert details["previous_ends_at"] == before.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_no_extends_left_and_the_cap_are_refused_in_words(emulated, leases, clock, running):
    ada, deployment_id = running
    clock.move(hours=23)
    _extend(emulated, ada, deployment_id)
    clock.move(hours=23)
    assert _refusal(emulated, ada, deployment_id).endswith("no extends left.")

    leases.policy(max_extends="5", reason="more extends")
    assert _refusal(emulated, ada, deployment_id).endswith("the cap of 2 days is reached.")


def test_an_extend_stops_at_the_cap(emulated, leases, clock):
    leases.policy(default="20h", extend_step="1d", cap="1d")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    lease = leases.lease(deployment_id)

    extended = _extend(emulated, ada, deployment_id)

    assert extended.ends_at == lease.started_at + timedelta(days=1)


def test_someone_else_cannot_extend_and_learns_nothing(emulated, leases, clock, running):
    from app.errors import NotFound

    _ada, deployment_id = running
    bob = emulated.user("bob")
    with pytest.raises(NotFound):
        _extend(emulated, bob, deployment_id)


def test_an_operator_extends_past_the_cap_with_a_reason_and_the_owner_is_told(
    emulated, leases, clock, running
):
    from app.auth.operations import grant_role

    _ada, deployment_id = running
    olga = emulated.user("olga")
    with emulated.app.app_context():
        grant_role(db.session.get(User, olga), "operator", granted_by="test")
        db.session.commit()
    with pytest.raises(InvalidPolicy):
        _extend(emulated, olga, deployment_id, override=True, by=7 * 24 * 60)
    before = leases.lease(deployment_id).ends_at

    lease = _extend(
        emulated, olga, deployment_id, override=True, by=7 * 24 * 60, reason="Thesis deadline"
    )

    assert lease.ends_at - before == timedelta(days=7)
    row = emulated.row(deployment_id)
    event = row.events[-1]
    assert (event.kind, event.source, event.actor_id) == ("lease-extended", "admin", olga)
    assert event.details["past_cap"] is True and event.details["reason"] == "Thesis deadline"


def test_extending_in_the_grace_period_saves_the_deployment(emulated, leases, clock):
    leases.policy(default="1h", extend_step="1h", grace="30m")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    clock.move(minutes=61)
    assert leases.expire().expired == 1

    _extend(emulated, ada, deployment_id)
    clock.move(minutes=35)  # the old grace would be over
    assert leases.expire().acted == 0
    assert leases.lease(deployment_id).state == "running"


def test_a_policy_with_no_extend_step_allows_no_extends(emulated, leases, clock):
    leases.policy(default="1h")
    ada = emulated.user("ada")
    deployment_id = leases.launch(ada)
    leases.ready(deployment_id)
    assert _refusal(emulated, ada, deployment_id).endswith("policy allows no extends.")
    with emulated.app.app_context():
        assert resolve("test-notebook", "physics").extend_step is None


def test_an_operators_override_right_after_the_owners_extend_is_not_taken_for_a_repeat(
    emulated, leases, clock, running
):
    from app.auth.operations import grant_role

    ada, deployment_id = running
    olga = emulated.user("olga")
    with emulated.app.app_context():
        grant_role(db.session.get(User, olga), "operator", granted_by="test")
        db.session.commit()
    clock.move(hours=23)
    first = _extend(emulated, ada, deployment_id)
    clock.move(seconds=2)

    lease = _extend(emulated, olga, deployment_id, override=True, by=60, reason="Conference")

    assert lease.ends_at - first.ends_at == timedelta(hours=1)
    assert lease.extends == first.extends + 1
