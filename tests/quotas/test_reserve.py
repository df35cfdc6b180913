"""Reserving a launch against limits: admitted within them, refused beyond them, released
when the deployment stops holding."""

import pytest
from sqlalchemy import func, select

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.errors import QuotaExceeded
from app.quotas.operations import reserve
from tests.quotas.conftest import charge, new_deployment


def try_reserve(quotas, user_id, charged, group_name=None, name=""):
    """Reserve a new deployment; returns its id, or the QuotaExceeded raised."""
    with quotas.app.app_context():
        user = db.session.get(User, user_id)
        deployment = new_deployment(user_id, name=name, group_name=group_name)
        try:
            reserve(user, group_name, charged, deployment)
        except QuotaExceeded as error:
            return error
        db.session.commit()  # the caller commits the reservation (the launch, in the portal)
        return deployment.id


def count_deployments(quotas):
    with quotas.app.app_context():
        return db.session.scalar(select(func.count()).select_from(Deployment))


def test_a_launch_within_the_limits_is_recorded_with_its_charge(quotas):
    user = quotas.user()
    quotas.limit("user", user, cores="8", gpus="2")
    deployment_id = try_reserve(quotas, user, charge(cores=4, gpus=1))
    assert isinstance(deployment_id, int)
    with quotas.app.app_context():
        stored = db.session.get(Deployment, deployment_id)
        assert stored.status == "SUBMITTING"
        assert (stored.charge["cores"], stored.charge["gpus"]) == (4, 1)


def test_a_launch_over_the_gpu_limit_names_the_limit_the_holders_and_the_excess(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpus="4")
    quotas.hold(user, charge(gpus=1), name="alpha")
    quotas.hold(user, charge(gpus=1), name="beta")
    quotas.hold(user, charge(cores=2), name="cpu only")
    error = try_reserve(quotas, user, charge(gpus=4))
    assert isinstance(error, QuotaExceeded)
    assert "GPU" in error.message
    assert (
        "It needs 4 GPUs, but deployments “alpha” and “beta” already hold 2 GPUs of your limit "
        "of 4 GPUs" in error.message
    )
    assert "(2 GPUs over)" in error.message
    assert "cpu only" not in error.message
    assert count_deployments(quotas) == 3


def test_a_launch_exactly_filling_the_limit_is_admitted(quotas):
    user = quotas.user()
    quotas.limit("user", user, memory="64 GB", deployments="2")
    quotas.hold(user, charge(memory=32))
    assert isinstance(try_reserve(quotas, user, charge(memory=32)), int)
    error = try_reserve(quotas, user, charge(memory=1))
    assert "deployment" in error.message and "(1 deployment over)" in error.message


def test_memory_over_the_limit_is_said_in_sizes(quotas):
    user = quotas.user()
    quotas.limit("user", user, memory="16 GB")
    error = try_reserve(quotas, user, charge(memory=32))
    assert (
        "It needs 32 GB of memory, but your limit is 16 GB of memory (16 GB over)." in error.message
    )


def test_a_per_model_limit_binds_that_model_only(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpu_models={"A100": "1", "T4": "4"})
    assert isinstance(try_reserve(quotas, user, charge(gpus=1, gpu_models={"A100": 1})), int)
    error = try_reserve(quotas, user, charge(gpus=1, gpu_models={"A100": 1}))
    assert "It needs 1 A100 GPU, but deployment “" in error.message
    assert isinstance(try_reserve(quotas, user, charge(gpus=4, gpu_models={"T4": 4})), int)


@pytest.mark.parametrize(
    ("fields", "holds"),
    [
        ({"status": "NOT_LAUNCHED"}, False),
        ({"status": "failed"}, False),
        ({"status": "failed", "request_options": {"keep_failed_attempt": True}}, True),
        ({"status": "deleted"}, False),
        ({"status": "VANISHED"}, False),
        ({"deleted": True}, False),
        ({"status": "UNCONFIRMED"}, True),
        ({"status": "SUBMITTING"}, True),
        ({"status": "delete-failed"}, True),
        ({"status": "deleting"}, True),
    ],
)
def test_what_a_deployment_holds_follows_its_status(quotas, fields, holds):
    user = quotas.user()
    quotas.limit("user", user, gpus="1")
    held = quotas.hold(user, charge(gpus=1))
    quotas.update(held, **fields)
    outcome = try_reserve(quotas, user, charge(gpus=1))
    assert isinstance(outcome, QuotaExceeded) is holds


def test_the_reservation_is_released_when_the_orchestrator_refuses_or_the_create_fails(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpus="1")
    first = try_reserve(quotas, user, charge(gpus=1))
    assert isinstance(try_reserve(quotas, user, charge(gpus=1)), QuotaExceeded)
    quotas.update(first, status="NOT_LAUNCHED")
    second = try_reserve(quotas, user, charge(gpus=1))
    assert isinstance(second, int)
    quotas.update(second, status="creating", uuid="u-1")
    quotas.update(second, status="failed")
    third = try_reserve(quotas, user, charge(gpus=1))
    assert isinstance(third, int)
    quotas.update(third, status="ready", uuid="u-2")
    quotas.update(third, deleted=True, status="deleted")
    assert isinstance(try_reserve(quotas, user, charge(gpus=1)), int)


def test_a_group_pool_limits_the_deployments_charged_to_the_group(quotas):
    alice, bob = quotas.user(groups=["physics"]), quotas.user(groups=["physics"])
    quotas.limit("group", "physics", gpus="3")
    quotas.hold(alice, charge(gpus=2), group_name="physics", name="alice's run")
    quotas.hold(bob, charge(gpus=5), name="bob's own")
    error = try_reserve(quotas, bob, charge(gpus=2), group_name="physics")
    assert "This launch does not fit the pool of group physics." in error.message
    assert (
        "the members of group physics already hold 2 GPUs of its pool, limited to 3 GPUs"
        in error.message
    )
    # Alice's deployment is hers: Bob is told how much the group holds, not what she runs.
    assert "alice's run" not in error.message and "bob's own" not in error.message
    assert "none of what holds it is yours" in error.message
    assert "delete a deployment" not in error.message
    assert isinstance(try_reserve(quotas, bob, charge(gpus=1), group_name="physics"), int)
    # Uncharged to the group, the pool does not apply.
    assert isinstance(try_reserve(quotas, bob, charge(gpus=2)), int)


def test_a_pool_refusal_names_only_the_persons_own_deployments_in_it(quotas):
    alice, bob = quotas.user(groups=["physics"]), quotas.user(groups=["physics"])
    quotas.limit("group", "physics", gpus="3")
    quotas.hold(alice, charge(gpus=2), group_name="physics", name="alice's run")
    quotas.hold(bob, charge(gpus=1), group_name="physics", name="bob's run")
    error = try_reserve(quotas, bob, charge(gpus=1), group_name="physics")
    assert (
        "the members of group physics already hold 3 GPUs of its pool, limited to 3 GPUs "
        "(1 GPU over); your deployment “bob's run” is one of them." in error.message
    )
    assert "alice's run" not in error.message
    assert "delete a deployment or choose smaller sizes" in error.message


def test_a_launch_of_unknown_cost_is_refused_for_a_user_with_limits(quotas):
    limited, free = quotas.user(), quotas.user()
    quotas.limit("user", limited, cores="100")
    unknown = charge(uncounted=["node 'vm' is sized by the flavour 'g5.large'"])
    error = try_reserve(quotas, limited, unknown)
    assert "cannot be computed" in error.message and "g5.large" in error.message
    assert isinstance(try_reserve(quotas, free, unknown), int)


def test_the_allow_policy_lets_a_launch_of_unknown_cost_through(make_app):
    from tests.quotas.conftest import Quotas

    quotas = Quotas(make_app(QUOTA_UNCOUNTABLE_POLICY="allow"))
    user = quotas.user()
    quotas.limit("user", user, cores="1")
    assert isinstance(try_reserve(quotas, user, charge(uncounted=["unknown flavour"])), int)


def test_a_refused_reservation_leaves_the_session_usable(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpus="0")
    with quotas.app.app_context():
        person = db.session.get(User, user)
        with pytest.raises(QuotaExceeded):
            reserve(person, None, charge(gpus=1), new_deployment(user))
        ok = new_deployment(user)
        reserve(person, None, charge(cores=1), ok)
        assert db.session.get(Deployment, ok.id).charge["cores"] == 1


def test_a_deployment_already_stored_by_the_caller_is_not_counted_twice(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpus="1")
    with quotas.app.app_context():
        person = db.session.get(User, user)
        deployment = new_deployment(user)
        deployment.charge = charge(gpus=1)
        db.session.add(deployment)
        db.session.flush()
        reserve(person, None, charge(gpus=1), deployment)
        assert db.session.get(Deployment, deployment.id).status == "SUBMITTING"


def test_a_launch_whose_template_can_no_longer_be_read_is_of_unknown_cost(quotas):
    """Counting nothing for it would let it past every limit."""
    from app.launch.decision import charge_of

    limited = quotas.user()
    quotas.limit("user", limited, cores="100")
    with quotas.app.app_context():
        charged = charge_of("topology_template: [never closed", {})
    assert charged["uncounted"] and "could not be read" in charged["uncounted"][0]
    error = try_reserve(quotas, limited, charged)
    assert isinstance(error, QuotaExceeded) and "cannot be computed" in error.message
