"""Which limits apply: the user's own, then their groups' member defaults (the most generous
group wins), then the site default; unset everywhere means unlimited."""

import pytest

from app.auth.models import User
from app.extensions import db
from app.quotas.editing import INHERIT, InvalidLimit, parse_limit
from app.quotas.limits import combine, limits_for, pool_limits
from app.quotas.models import QuotaChange

GB = 10**9


def limits_of(quotas, user_id):
    with quotas.app.app_context():
        return limits_for(db.session.get(User, user_id))


def test_nothing_set_anywhere_means_unlimited(quotas):
    limits = limits_of(quotas, quotas.user())
    assert limits.values == dict.fromkeys(["cores", "gpus", "memory", "disk", "deployments"])
    assert not limits.any_finite


def test_the_users_own_limit_overrides_the_groups_which_override_the_site(quotas):
    user = quotas.user(groups=["physics"])
    quotas.limit("site", cores="4", gpus="0", memory="16 GB", deployments="3")
    quotas.limit("member", "physics", cores="16", gpus="2")
    quotas.limit("user", user, cores="32")
    limits = limits_of(quotas, user)
    assert limits.values == {
        "cores": 32,
        "gpus": 2,
        "memory": 16 * GB,
        "disk": None,
        "deployments": 3,
    }
    assert limits.sources == {
        "cores": "own limit",
        "gpus": "group physics",
        "memory": "site default",
        "deployments": "site default",
    }


def test_several_groups_combine_to_the_most_generous(quotas):
    user = quotas.user(groups=["physics", "biology", "chemistry"])
    quotas.limit("member", "physics", gpus="2", cores="8")
    quotas.limit("member", "biology", gpus="4", cores="unlimited")
    quotas.limit("member", "chemistry", memory="8 GB")
    limits = limits_of(quotas, user)
    assert (limits.get("gpus"), limits.get("cores"), limits.get("memory")) == (4, None, 8 * GB)
    assert limits.sources["gpus"] == "group biology, physics"


def test_a_users_explicit_unlimited_beats_a_site_limit(quotas):
    user = quotas.user()
    quotas.limit("site", gpus="1")
    quotas.limit("user", user, gpus="unlimited")
    assert limits_of(quotas, user).get("gpus") is None


def test_per_model_gpu_limits_follow_the_same_precedence(quotas):
    user = quotas.user(groups=["ml"])
    quotas.limit("site", gpu_models={"A100": "0", "T4": "1"})
    quotas.limit("member", "ml", gpu_models={"T4": "4"})
    quotas.limit("user", user, gpu_models={"A100": "1"})
    assert limits_of(quotas, user).gpu_models == {"A100": 1, "T4": 4}


def test_a_group_pool_has_only_its_own_limits(quotas):
    quotas.limit("site", gpus="1")
    quotas.limit("group", "physics", gpus="32", gpu_models={"V100": "32"})
    with quotas.app.app_context():
        pool = pool_limits("physics")
        assert (pool.get("gpus"), pool.get("cores"), pool.gpu_models) == (32, None, {"V100": 32})
        assert not pool_limits("nobody").any_finite


def test_clearing_a_users_limit_lets_the_next_level_decide_again(quotas):
    user = quotas.user()
    quotas.limit("site", cores="4")
    quotas.limit("user", user, cores="64")
    quotas.limit("user", user, cores="")
    assert limits_of(quotas, user).get("cores") == 4


def test_every_change_is_recorded_with_old_new_and_reason(quotas):
    user = quotas.user()
    quotas.limit("user", user, gpus="2", reason="thesis work")
    quotas.limit("user", user, gpus="4", memory="64 GB", reason="new project")
    with quotas.app.app_context():
        changes = db.session.scalars(db.select(QuotaChange).order_by(QuotaChange.id)).all()
        assert [(c.old, c.new, c.reason) for c in changes] == [
            ({}, {"gpus": 2}, "thesis work"),
            ({"gpus": 2}, {"gpus": 4, "memory": 64 * GB}, "new project"),
        ]


def test_combining_is_pure_and_ignores_groups_that_set_nothing():
    limits = combine({}, [("a", {}), ("b", {"disk": 5})], {"disk": 1})
    assert limits.get("disk") == 5


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("cores", "2.5", 2.5),
        ("gpus", "3", 3),
        ("memory", "8 GiB", 8 * 2**30),
        ("disk", "1 TB", 10**12),
        ("gpus", "unlimited", None),
        ("deployments", " ", INHERIT),
    ],
)
def test_typed_limits_are_read_as_numbers_sizes_or_unlimited(key, text, value):
    assert parse_limit(key, text) == value


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("gpus", "1.5", "whole number"),
        ("cores", "-1", "zero or more"),
        ("memory", "8", "followed by a unit"),
        ("deployments", "lots", "whole number"),
    ],
)
def test_unreadable_limits_say_what_is_expected(key, text, message):
    with pytest.raises(InvalidLimit, match=message):
        parse_limit(key, text)
