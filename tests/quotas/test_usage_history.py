"""Core-hours and GPU-hours per month, from each deployment's charge and lifetime."""

from datetime import datetime

import pytest

from app.deployments.models import DeploymentEvent
from app.extensions import db
from app.quotas.usage_history import csv_rows, month_starts, monthly_usage, per_month
from tests.quotas.conftest import charge

NOW = datetime(2026, 11, 11)


def usage(quotas, **kwargs):
    with quotas.app.app_context():
        return {(u.month, u.owner): u for u in monthly_usage(3, now=NOW, **kwargs)}


def test_hours_are_split_across_the_months_a_deployment_ran_in(quotas):
    user = quotas.user("ada")
    quotas.hold(
        user,
        charge(cores=2, gpus=1, gpu_models={"A100": 1}),
        status="deleted",
        created_at=datetime(2026, 10, 31, 22),
        deleted=True,
        deleted_at=datetime(2026, 11, 1, 2),
    )
    quotas.hold(user, charge(cores=4), created_at=datetime(2026, 11, 10))
    found = usage(quotas)
    october, november = found[("2026-10", "ada")], found[("2026-11", "ada")]
    assert (october.core_hours, october.gpu_hours) == (4, 2)
    assert october.gpu_hours_by_model == {"A100": 2}
    assert (november.core_hours, november.gpu_hours) == (4 + 24 * 4, 2)


def test_a_failed_create_counts_until_it_failed(quotas):
    user = quotas.user("bob")
    failed = quotas.hold(user, charge(cores=10), status="failed", created_at=datetime(2026, 11, 5))
    with quotas.app.app_context():
        db.session.add(
            DeploymentEvent(
                deployment_id=failed,
                at=datetime(2026, 11, 5, 3),
                to_status="failed",
                source="sync",
            )
        )
        db.session.commit()
    assert usage(quotas)[("2026-11", "bob")].core_hours == 30


def test_usage_per_group_counts_only_deployments_charged_to_a_group(quotas):
    alice, bob = quotas.user("alice"), quotas.user("bob")
    quotas.hold(alice, charge(cores=1), created_at=datetime(2026, 11, 10), group_name="physics")
    quotas.hold(bob, charge(cores=1), created_at=datetime(2026, 11, 10, 12), group_name="physics")
    quotas.hold(bob, charge(cores=100), created_at=datetime(2026, 11, 10))
    found = usage(quotas, by="group")
    assert list(found) == [("2026-11", "physics")]
    assert found[("2026-11", "physics")].core_hours == 24 + 12


def test_one_users_usage_leaves_the_others_out(quotas):
    alice, bob = quotas.user("alice"), quotas.user("bob")
    quotas.hold(alice, charge(cores=1), created_at=datetime(2026, 11, 10))
    quotas.hold(bob, charge(cores=1), created_at=datetime(2026, 11, 10))
    assert list(usage(quotas, user_id=bob)) == [("2026-11", "bob")]


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (datetime(2026, 1, 15), ["2025-11", "2025-12", "2026-01"]),
        (datetime(2026, 12, 1), ["2026-10", "2026-11", "2026-12"]),
    ],
)
def test_months_run_back_across_the_new_year(now, expected):
    assert [m.strftime("%Y-%m") for m in month_starts(3, now)] == expected


def test_monthly_totals_and_csv_rows(quotas):
    user = quotas.user("ada")
    quotas.hold(
        user, charge(cores=1, gpus=2, gpu_models={"T4": 2}), created_at=datetime(2026, 11, 10, 12)
    )
    with quotas.app.app_context():
        found = monthly_usage(3, now=NOW)
    assert per_month(found, ["2026-10", "2026-11"]) == [
        {"month": "2026-10", "core_hours": 0.0, "gpu_hours": 0.0},
        {"month": "2026-11", "core_hours": 12.0, "gpu_hours": 24.0},
    ]
    assert list(csv_rows(found, "user")) == [
        ["2026-11", "user", "ada", "cores", "12.00"],
        ["2026-11", "user", "ada", "gpu:T4", "24.00"],
    ]
