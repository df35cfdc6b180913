"""Budgets: what a launch needs of each, what is left, when it renews, said in one sentence;
set and shown from the command line."""

from datetime import datetime, timedelta

import pytest

from app.auth.models import User
from app.clock import set_clock
from app.extensions import db
from app.quotas.budgets import budget_left, set_budget
from app.quotas.commitments import committed_by_ends
from app.quotas.models import GROUP, USER
from app.quotas.usage_models import CORE_HOURS
from tests.clocks import Clock
from tests.quotas.conftest import charge

NOW = datetime(2026, 11, 20, 12, 0)
A100 = "gpus:A100"


@pytest.fixture
def clock():
    at = Clock(NOW - timedelta(hours=24))
    set_clock(at)
    return at


def used_for(quotas, clock, user, hours, gpus=2, cores=0, group="physics", model="A100"):
    """A deployment of ``user`` that held ``gpus`` of ``model`` for ``hours`` before NOW."""
    clock.at = NOW - timedelta(hours=hours)
    held = quotas.hold(
        user, charge(cores=cores, gpus=gpus, gpu_models={model: gpus}), group_name=group
    )
    clock.at = NOW
    quotas.update(held, status="deleted")


def checks(quotas, user, group, resources, lease_hours, **kw):
    with quotas.app.test_request_context():
        person = db.session.get(User, user)
        found = budget_left(person, group, resources, lease_hours, NOW, **kw)
        return [
            (c.scope, c.resource, round(c.needed, 3), round(c.left, 3), c.fits, c.sentence)
            for c in found
        ]


def budget(quotas, scope, subject, resource, hours, period_days=0):
    with quotas.app.app_context():
        set_budget(None, scope, str(subject), resource, hours, period_days, "test")


def test_a_launch_over_the_groups_monthly_budget_is_told_the_numbers_and_the_renewal(quotas, clock):
    user = quotas.user(groups=["physics"])
    used_for(quotas, clock, user, hours=24)  # 48 A100 GPU-hours used this month
    budget(quotas, GROUP, "physics", A100, 68)
    found = checks(quotas, user, "physics", charge(gpus=2, gpu_models={"A100": 2}), 24)
    assert found == [
        (
            GROUP,
            A100,
            48.0,
            20.0,
            False,
            "needs 48 A100 GPU-hours; 20 left in group physics this month, renewed on 1 December",
        )
    ]
    fits = checks(quotas, user, "physics", charge(gpus=1, gpu_models={"A100": 1}), 20)
    assert [(needed, left, ok) for _, _, needed, left, ok, _ in fits] == [(20.0, 20.0, True)]


def test_only_the_hours_before_the_renewal_count_against_this_month(quotas, clock):
    user = quotas.user(groups=["physics"])
    budget(quotas, GROUP, "physics", "gpus", 10)
    with quotas.app.test_request_context():
        person = db.session.get(User, user)
        late = datetime(2026, 11, 30, 18, 0)
        (check,) = budget_left(person, "physics", charge(gpus=1, gpu_models={"T4": 1}), 24, late)
    assert (check.needed, check.renews_on.isoformat(), check.fits) == (6.0, "2026-12-01", True)


def test_a_rolling_window_forgets_what_was_used_before_it(quotas, clock):
    user = quotas.user()
    used_for(quotas, clock, user, hours=24 * 40, gpus=1, group=None)  # 40 days, 1 GPU
    budget(quotas, USER, user, "gpus", 1000, period_days=30)
    (found,) = checks(quotas, user, None, charge(gpus=1, gpu_models={"A100": 1}), 10)
    # The window is today and the 29 days before: 29 whole days and today's 12 hours.
    assert found[3] == round(1000 - (29 * 24 + 12), 3)
    assert found[5] == (
        f"needs 10 GPU-hours; {1000 - (29 * 24 + 12):,} left in your budget over the last 30 days"
    )


def test_budgets_of_the_person_and_the_group_each_bind_and_the_tightest_comes_first(quotas, clock):
    user = quotas.user(groups=["physics"])
    used_for(quotas, clock, user, hours=10, gpus=1, cores=4)
    budget(quotas, USER, user, CORE_HOURS, 100)
    budget(quotas, GROUP, "physics", A100, 500)
    budget(quotas, GROUP, "physics", "gpus:T4", 1)  # needs nothing of it: left out
    found = checks(quotas, user, "physics", charge(cores=8, gpus=1, gpu_models={"A100": 1}), 10)
    assert [(scope, resource, left) for scope, resource, _, left, _, _ in found] == [
        (USER, CORE_HOURS, 60.0),
        (GROUP, A100, 490.0),
    ]
    assert found[0][4] is False and found[0][5].startswith("needs 80 core-hours; 60 left")


def test_what_runs_counts_for_the_rest_of_its_lease_when_the_lease_ends_are_given(quotas, clock):
    user = quotas.user(groups=["physics"])
    clock.at = NOW - timedelta(hours=2)
    running = quotas.hold(user, charge(gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.at = NOW
    budget(quotas, GROUP, "physics", A100, 30)
    ends = {running: NOW + timedelta(hours=8)}
    found = checks(
        quotas,
        user,
        "physics",
        charge(gpus=1, gpu_models={"A100": 1}),
        24,
        committed=committed_by_ends(lambda ids: {i: ends.get(i) for i in ids}),
    )
    # 30 - 2 used - 8 to come = 20 left; 24 needed.
    assert [(needed, left, ok) for _, _, needed, left, ok, _ in found] == [(24.0, 20.0, False)]


def test_the_sentence_speaks_italian(quotas, clock):
    user = quotas.user(groups=["physics"])
    budget(quotas, GROUP, "physics", A100, 20)
    with quotas.app.test_request_context(headers={"Accept-Language": "it"}):
        person = db.session.get(User, user)
        (check,) = budget_left(person, "physics", charge(gpus=2, gpu_models={"A100": 2}), 24, NOW)
        assert check.sentence == (
            "servono 48 ore-GPU A100; ne restano 20 nel gruppo physics questo mese, "
            "rinnovate il 1 dicembre"
        )


def test_budgets_are_set_and_shown_from_the_command_line(quotas, clock):
    user = quotas.user("rita", groups=["physics"])
    used_for(quotas, clock, user, hours=5, gpus=2)
    runner = quotas.app.test_cli_runner()
    result = runner.invoke(
        args=[
            "quota",
            "budget",
            "set",
            "--group",
            "physics",
            "--period",
            "month",
            "--gpu-hours",
            "2000",
            "--gpu-model",
            "A100",
            "--core-hours",
            "10000",
            "--reason",
            "grant 2026",
        ]
    )
    assert result.exit_code == 0, result.output
    shown = runner.invoke(args=["quota", "budget", "show", "--group", "physics"]).output
    assert "A100 GPU-hours" in shown and "used 10.0, left 1990.0 (renewed on 2026-12-01)" in shown
    assert "core-hours" in shown and "grant 2026" in shown
    result = runner.invoke(
        args=[
            "quota",
            "budget",
            "set",
            "--user",
            "rita",
            "--period",
            "30d",
            "--gpu-hours",
            "5",
            "--reason",
            "course",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "used 10.0, left -5.0 (rolling)  OVERRUN" in result.output
    refused = runner.invoke(
        args=[
            "quota",
            "budget",
            "set",
            "--group",
            "physics",
            "--period",
            "week",
            "--gpu-hours",
            "1",
            "--reason",
            "x",
        ]
    )
    assert refused.exit_code != 0 and "A period is" in refused.output


def test_operators_set_a_groups_budget_on_its_quotas_page_and_see_what_is_left(
    quotas, clock, quota_app
):
    from tests.conftest import People, csrf_from

    user = quotas.user(groups=["physics"])
    used_for(quotas, clock, user, hours=3, gpus=2)
    people = People(quota_app, quota_app.test_client())
    people.login_as("operator", username="olga")
    operator = people.client
    page = operator.get("/quotas/group?name=physics").get_data(as_text=True)
    assert "No budget: only the limits apply." in page
    answer = operator.post(
        "/quotas/budgets/group?subject=physics",
        data={
            "csrf_token": csrf_from(page),
            "budget-kind": "model",
            "budget-gpu_model": "A100",
            "budget-hours": "100",
            "budget-period": "month",
            "budget-reason": "grant",
        },
    )
    assert answer.status_code == 302
    page = operator.get("/quotas/group?name=physics").get_data(as_text=True)
    assert "Budget saved." in page and "A100 GPU-hours" in page
    assert '<td class="text-end">6.0</td>' in page and '<td class="text-end">94.0</td>' in page
    refused = operator.post(
        "/quotas/budgets/group?subject=physics",
        data={
            "csrf_token": csrf_from(page),
            "budget-kind": "cores",
            "budget-hours": "lots",
            "budget-period": "month",
            "budget-reason": "x",
        },
        follow_redirects=True,
    )
    assert "Hours are a number, such as 2000." in refused.get_data(as_text=True)


def test_an_overrun_is_answered_to_scripts_as_a_budget_problem_with_the_numbers(quotas, clock):
    from app.api.problems import from_portal_error
    from app.quotas.errors import OverBudget

    user = quotas.user(groups=["physics"])
    budget(quotas, GROUP, "physics", A100, 20)
    with quotas.app.test_request_context("/api/v1/deployments"):
        person = db.session.get(User, user)
        found = budget_left(person, "physics", charge(gpus=2, gpu_models={"A100": 2}), 24, NOW)
        problem = from_portal_error(OverBudget([c for c in found if not c.fits]))
        body = problem.body()
    assert problem.status == 409 and body["type"].endswith("/problems/budget")
    assert body["detail"] == (
        "needs 48 A100 GPU-hours; 20 left in group physics this month, renewed on 1 December"
    )
    (numbers,) = body["budget"]
    assert numbers["needed_hours"] == 48.0 and numbers["left_hours"] == 20.0
    assert numbers["renews_on"] == "2026-12-01" and numbers["period"] == "month"


def test_what_runs_is_summed_in_the_database_as_it_is_deployment_by_deployment(quotas, clock):
    """The launch's sum of what runs will still use (``committed_hours``: a few grouped rows)
    gives what working it out from each deployment's end gives (``committed_by_ends`` with
    the leases' own ``lease_ends``), for every kind of end: a lease's end, a moved deletion,
    a lease not started (its length from now), no lease yet (its policy's default), no end."""
    from app.launch.constraints.budget import committed_hours, lease_ends
    from app.leases.editing import set_policy
    from app.leases.models import WAITING, Lease

    user = quotas.user(groups=["physics"])
    clock.at = NOW - timedelta(hours=2)
    a100 = charge(cores=4, gpus=1, gpu_models={"A100": 1})
    two = charge(cores=8, gpus=2, gpu_models={"A100": 1, "T4": 1})
    ids = [quotas.hold(user, c, group_name="physics") for c in (a100, two, a100, two, a100)]
    quotas.hold(user, charge(cores=2))  # charged to no group: not the group's
    clock.at = NOW
    with quotas.app.app_context():
        set_policy(None, None, None, {"default": 300}, "test")
        db.session.add_all(
            [
                Lease(
                    deployment_id=ids[0],
                    state="running",
                    minutes=600,
                    ends_at=NOW + timedelta(hours=10),
                ),
                Lease(
                    deployment_id=ids[1],
                    state="running",
                    minutes=600,
                    ends_at=NOW + timedelta(hours=3),
                    delete_at=NOW + timedelta(hours=4),
                ),
                Lease(deployment_id=ids[2], state=WAITING, minutes=90),
                Lease(deployment_id=ids[3], state="running", minutes=None),  # never ends
            ]
        )  # ids[4]: no lease yet, the policy's default (5 hours) from now
        db.session.commit()
    for owner in (
        {"group_name": "physics"},
        {"user_id": user},
        {"user_id": user, "group_name": "physics"},
    ):
        for until in (None, NOW + timedelta(hours=2)):
            with quotas.app.app_context():
                summed = committed_hours()(owner, NOW, until)
                one_by_one = committed_by_ends(lease_ends)(owner, NOW, until)
                assert round(summed.core_hours, 6) == round(one_by_one.core_hours, 6)
                assert {m: round(h, 6) for m, h in summed.gpu_hours.items()} == {
                    m: round(h, 6) for m, h in one_by_one.gpu_hours.items()
                }
    with quotas.app.app_context():
        whole = committed_hours()({"group_name": "physics"}, NOW, None)
        # 10 h + 4 h (its deletion) + 1.5 h + 5 h of A100; 4 h of T4.
        assert (round(whole.gpu("A100"), 6), round(whole.gpu("T4"), 6)) == (20.5, 4.0)
        others = committed_hours(excluding=ids[0])({"group_name": "physics"}, NOW, None)
        assert round(others.gpu("A100"), 6) == 10.5
