"""Usage kept as running totals: exact per day and per month, the same before and after the
worker folds it, and split where a deployment's charge or group changes."""

from datetime import date, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.clock import set_clock
from app.extensions import db
from app.quotas.usage_marks import account_usage_once
from app.quotas.usage_models import DAY, MONTH, UsageMark, UsagePiece
from app.quotas.usage_totals import one_reading, usage_per, used_since
from tests.clocks import Clock
from tests.quotas.conftest import charge

START = datetime(2026, 10, 30, 10, 0)


@pytest.fixture
def clock():
    at = Clock(START)
    set_clock(at)
    return at


def day_hours(quotas, first, last, **who):
    with quotas.app.app_context():
        found = usage_per(DAY, first, last, **who)
        return {
            day: (
                round(h.core_hours, 6),
                round(h.memory_gb_hours, 6),
                {m: round(v, 6) for m, v in h.gpu_hours.items()},
            )
            for day, h in sorted(found.items())
        }


def fold(quotas):
    with quotas.app.app_context():
        return account_usage_once()


def leftovers(quotas):
    with quotas.app.app_context():
        marks = db.session.scalar(select(func.count()).select_from(UsageMark))
        pieces = db.session.scalar(select(func.count()).select_from(UsagePiece))
        return marks, pieces


def test_a_deployment_is_counted_per_day_to_the_minute_while_it_runs_and_once_it_ends(
    quotas, clock
):
    user = quotas.user(groups=["physics"])
    running = quotas.hold(
        user, charge(cores=2, memory=4, gpus=1, gpu_models={"A100": 1}), group_name="physics"
    )
    clock.move(hours=14, minutes=30)  # 31 October 00:30
    expected_while_running = {
        date(2026, 10, 30): (28.0, 56.0, {"A100": 14.0}),
        date(2026, 10, 31): (1.0, 2.0, {"A100": 0.5}),
    }
    week = (date(2026, 10, 29), date(2026, 11, 5))
    assert day_hours(quotas, *week, user_id=user) == expected_while_running
    fold(quotas)
    assert day_hours(quotas, *week, user_id=user) == expected_while_running
    clock.move(hours=24, minutes=1)  # 1 November 00:31
    quotas.update(running, status="deleted")
    clock.move(hours=100)
    expected = {
        date(2026, 10, 30): (28.0, 56.0, {"A100": 14.0}),
        date(2026, 10, 31): (48.0, 96.0, {"A100": 24.0}),
        date(2026, 11, 1): (
            round(2 * 31 / 60, 6),
            round(4 * 31 / 60, 6),
            {"A100": round(31 / 60, 6)},
        ),
    }
    assert day_hours(quotas, *week, user_id=user) == expected
    assert day_hours(quotas, *week, group_name="physics") == expected
    fold(quotas)
    assert day_hours(quotas, *week, user_id=user) == expected
    assert leftovers(quotas) == (0, 0)
    with quotas.app.app_context():
        months = usage_per(MONTH, date(2026, 10, 1), date(2026, 11, 1), group_name="physics")
        assert round(months[date(2026, 10, 1)].gpu_total, 6) == 38.0
        assert round(months[date(2026, 11, 1)].core_hours, 6) == round(2 * 31 / 60, 6)
        assert round(used_since(datetime(2026, 11, 1), user_id=user).gpu_total, 6) == round(
            31 / 60, 6
        )


def test_what_does_not_hold_is_never_counted(quotas, clock):
    user = quotas.user()
    quotas.hold(user, charge(cores=4), status="WAITING")
    quotas.hold(user, charge(cores=4), status="NOT_LAUNCHED")
    quotas.hold(user, charge(cores=4), deleted=True)
    clock.move(hours=5)
    fold(quotas)
    assert day_hours(quotas, START.date(), START.date(), user_id=user) == {}


def test_a_request_admitted_from_the_line_counts_from_its_admission(quotas, clock):
    user = quotas.user()
    waiting = quotas.hold(user, charge(cores=3), status="WAITING")
    clock.move(hours=2)
    quotas.update(waiting, status="SUBMITTING")
    clock.move(hours=1, minutes=15)
    fold(quotas)
    assert day_hours(quotas, START.date(), START.date(), user_id=user) == {
        START.date(): (3.75, 0.0, {})
    }


def test_a_change_of_group_or_charge_splits_the_use_where_it_happened(quotas, clock):
    user = quotas.user(groups=["physics", "chemistry"])
    deployment = quotas.hold(user, charge(gpus=2, gpu_models={"T4": 2}), group_name="physics")
    clock.move(hours=1)
    quotas.update(deployment, group_name="chemistry")
    clock.move(hours=2)
    quotas.update(deployment, charge=charge(gpus=1, gpu_models={"A100": 1}))
    clock.move(hours=4)
    day = START.date()
    assert day_hours(quotas, day, day, group_name="physics") == {day: (0.0, 0.0, {"T4": 2.0})}
    assert day_hours(quotas, day, day, group_name="chemistry") == {
        day: (0.0, 0.0, {"T4": 4.0, "A100": 4.0})
    }
    fold(quotas)
    assert day_hours(quotas, day, day, user_id=user) == {day: (0.0, 0.0, {"T4": 6.0, "A100": 4.0})}


def test_the_worker_writes_long_running_use_down_and_reading_stays_exact(quotas, clock):
    user = quotas.user()
    quotas.hold(user, charge(cores=1))
    for _ in range(30):
        clock.move(minutes=47)
        fold(quotas)
    marks, pieces = leftovers(quotas)
    assert (marks, pieces) == (1, 0)
    with quotas.app.app_context():
        assert round(used_since(datetime(2026, 10, 1), user_id=user).core_hours, 6) == round(
            30 * 47 / 60, 6
        )
        assert round(used_since(datetime(2026, 10, 30), user_id=user).core_hours, 6) == round(
            30 * 47 / 60, 6
        )


def test_several_hosts_ending_deployments_and_folding_at_once_count_every_hour_once(
    make_app, database_url, tmp_path, clock
):
    """Two processes end deployments while two others write down and fold the same
    deployments' use, all at one instant: each hour is counted once, whoever got there first."""
    from tests.conftest import TEST_CONFIG
    from tests.processes import race
    from tests.quotas import usage_worker
    from tests.quotas.conftest import Quotas

    shared = Quotas(make_app(SQLALCHEMY_DATABASE_URI=database_url))
    user = shared.user(groups=["physics"])
    ids = [
        shared.hold(user, charge(cores=1, gpus=1, gpu_models={"A100": 1}), group_name="physics")
        for _ in range(40)
    ]
    ended_at = START + timedelta(hours=5, minutes=7)
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    instance = str(tmp_path / "instance")
    arguments = [
        (config, instance, "end", ids[0::2], ended_at.isoformat()),
        (config, instance, "end", ids[1::2], ended_at.isoformat()),
        (config, instance, "account", ids[:20], ended_at.isoformat()),
        (config, instance, "account", ids[:20], ended_at.isoformat()),
    ]
    outcomes = race(usage_worker.run, arguments, parties=4, outcomes=4, method="spawn")
    assert outcomes == ["ok"] * 4
    clock.at = ended_at + timedelta(days=3)
    fold(shared)
    assert leftovers(shared) == (0, 0)
    hours = 40 * (5 + 7 / 60)
    with shared.app.app_context():
        total = used_since(datetime(2026, 10, 1), group_name="physics")
    assert round(total.core_hours, 6) == round(hours, 6)
    assert total.gpu_hours == {"A100": pytest.approx(hours, abs=1e-6)}


def test_usage_rebuilt_from_the_records_matches_what_was_kept_as_it_ran(quotas, clock):
    user = quotas.user(groups=["physics"])
    ended = quotas.hold(user, charge(cores=2, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.move(hours=5)
    quotas.hold(user, charge(cores=1, memory=8))
    clock.move(days=1, hours=2)
    quotas.update(ended, status="deleted")
    clock.move(hours=7)
    fold(quotas)
    week = (date(2026, 10, 29), date(2026, 11, 5))
    kept = day_hours(quotas, *week, user_id=user)
    runner = quotas.app.test_cli_runner()
    refused = runner.invoke(args=["quota", "usage", "rebuild"])
    assert refused.exit_code != 0 and "written down already" in refused.output
    result = runner.invoke(args=["quota", "usage", "rebuild", "--replace"])
    assert result.exit_code == 0, result.output
    assert "1 finished stretches written down, 1 running deployments marked." in result.output
    assert day_hours(quotas, *week, user_id=user) == kept
    assert leftovers(quotas) == (1, 0)


def test_a_groups_own_totals_are_its_members_sums_and_never_counted_twice(quotas, clock):
    """Folding keeps each group's own rows beside its members'. The group's use is read from
    them, and sums over people (everyone, per person, per group) leave them out."""
    ada, bob = quotas.user(groups=["physics"]), quotas.user(groups=["physics"])
    quotas.hold(ada, charge(cores=2, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    quotas.hold(bob, charge(cores=3), group_name="physics")
    quotas.hold(bob, charge(cores=5))  # charged to no group
    clock.move(hours=30)  # across midnight: pieces of two days
    fold(quotas)
    clock.move(hours=2)
    fold(quotas)
    first, last = START.date(), (START + timedelta(hours=32)).date()
    physics = day_hours(quotas, first, last, group_name="physics")
    assert physics == {
        first: (5 * 14.0, 0.0, {"A100": 14.0}),
        last: (5 * 18.0, 0.0, {"A100": 18.0}),
    }
    assert day_hours(quotas, first, last, group_name="") == {
        first: (5 * 14.0, 0.0, {}),
        last: (5 * 18.0, 0.0, {}),
    }
    with quotas.app.app_context():
        october = date(2026, 10, 1)
        everyone = usage_per(MONTH, first, last)
        assert round(everyone[october].core_hours, 6) == 10 * 32.0
        per_group = usage_per(MONTH, first, last, by="group")
        assert round(per_group[("physics", october)].core_hours, 6) == 5 * 32.0
        assert round(per_group[("", october)].core_hours, 6) == 5 * 32.0
        per_person = usage_per(MONTH, first, last, by="user", group_name="physics")
        assert set(owner for owner, _month in per_person) == {ada, bob}
        assert round(per_person[(bob, october)].core_hours, 6) == 3 * 32.0
        month = used_since(datetime(2026, 10, 1), group_name="physics")
        assert (round(month.core_hours, 6), round(month.gpu("A100"), 6)) == (160.0, 32.0)


def test_within_one_reading_every_figure_is_read_as_of_its_instant(quotas, clock):
    ada = quotas.user(groups=["physics"])
    quotas.hold(ada, charge(cores=2), group_name="physics")
    clock.move(hours=3)
    with quotas.app.app_context(), one_reading():
        october = date(2026, 10, 1)
        before = usage_per(MONTH, october, october, group_name="physics")[october]
        clock.move(hours=2)  # the page is still being drawn
        after = usage_per(MONTH, october, october, group_name="physics", by="user")
        since = used_since(datetime(2026, 10, 1), group_name="physics")
    assert round(before.core_hours, 6) == round(since.core_hours, 6) == 6.0
    assert round(after[(ada, october)].core_hours, 6) == 6.0


def test_a_groups_running_use_is_the_sum_of_its_members_whatever_their_gpu_models(quotas, clock):
    """Running marks are summed per person and set of GPU models; the group's figures add
    them up, and each person's keeps their own."""
    ada, bob = quotas.user(groups=["physics"]), quotas.user(groups=["physics"])
    quotas.hold(ada, charge(cores=2, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    quotas.hold(ada, charge(cores=1, gpus=2, gpu_models={"T4": 2}), group_name="physics")
    quotas.hold(ada, charge(cores=4), group_name="physics")
    clock.move(minutes=30)
    quotas.hold(bob, charge(cores=3, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.move(minutes=30)
    october = date(2026, 10, 1)
    with quotas.app.app_context(), one_reading():
        whole = usage_per(MONTH, october, october, group_name="physics")[october]
        people = usage_per(MONTH, october, october, group_name="physics", by="user")
        since = used_since(datetime(2026, 10, 1), group_name="physics")
        bobs = usage_per(MONTH, october, october, group_name="physics", by="user", people=[bob])
    assert list(bobs) == [(bob, october)]
    assert bobs[(bob, october)] == people[(bob, october)]
    assert round(whole.core_hours, 6) == round(since.core_hours, 6) == 7 + 1.5
    assert {m: round(h, 6) for m, h in whole.gpu_hours.items()} == {"A100": 1.5, "T4": 2.0}
    assert {m: round(h, 6) for m, h in since.gpu_hours.items()} == {"A100": 1.5, "T4": 2.0}
    assert round(people[(ada, october)].core_hours, 6) == 7.0
    assert {m: round(h, 6) for m, h in people[(ada, october)].gpu_hours.items()} == {
        "A100": 1.0,
        "T4": 2.0,
    }
    assert round(people[(bob, october)].core_hours, 6) == 1.5
    assert {m: round(h, 6) for m, h in people[(bob, october)].gpu_hours.items()} == {"A100": 0.5}


def test_running_marks_of_one_person_at_several_rates_count_each_at_its_own(quotas, clock):
    """Marks of one person and set of GPU models begun at different times at different rates
    are summed per rate: each counts its own rate for its own time."""
    ada = quotas.user(groups=["physics"])
    quotas.hold(ada, charge(cores=2, memory=4), group_name="physics")
    clock.move(minutes=20)
    quotas.hold(ada, charge(cores=6, memory=1), group_name="physics")
    quotas.hold(ada, charge(cores=6, memory=1), group_name="physics")
    clock.move(minutes=40)
    october = date(2026, 10, 1)
    with quotas.app.app_context(), one_reading():
        whole = usage_per(MONTH, october, october, group_name="physics")[october]
        people = usage_per(MONTH, october, october, group_name="physics", by="user")
    for hours in (whole, people[(ada, october)]):
        assert round(hours.core_hours, 6) == round(2 * 1 + 2 * 6 * 40 / 60, 6)
        assert round(hours.memory_gb_hours, 6) == round(4 * 1 + 2 * 1 * 40 / 60, 6)
