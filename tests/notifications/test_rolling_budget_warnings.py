"""Warnings of a rolling window's budget follow the window: a threshold warns when the use of
the last N days reaches it, not again while the use stays there whatever the date, and again
once the use has fallen 10 points below it and come back. Calendar months are unchanged."""

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from app.auth.managers import name_manager
from app.auth.models import User
from app.clock import set_clock
from app.extensions import db
from app.notifications import kinds
from app.notifications.models import Notification
from app.quotas.budget_warnings import warn_once
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP
from app.quotas.usage_marks import add_to_totals
from app.quotas.usage_models import DAY, MONTH, BudgetWarning
from tests.clocks import Clock

# 7 days into a block of 30 days counted from 1970: the block ends 23 days later.
FIRST = datetime(2026, 11, 10, 12, 0)


@pytest.fixture
def clock():
    at = Clock(FIRST)
    set_clock(at)
    yield at
    set_clock(None)


@pytest.fixture
def physics(portal, clock):
    """Group physics, managed by bob, with a budget of 100 core-hours per rolling 30 days;
    ``use(hours)`` writes down ada's use of the clock's day in it."""
    app = portal.app
    ada = portal.user("ada", "ada@example.org")
    bob = portal.user("bob", "bob@example.org")
    with app.app_context():
        name_manager("physics", db.session.get(User, bob), named_by="admin")
        set_budget(None, GROUP, "physics", "cores", 100, 30, "term")

    def use(hours: float) -> None:
        day = clock.at.date()
        with app.app_context():
            for span, start in ((DAY, day), (MONTH, day.replace(day=1))):
                add_to_totals(span, start, ada, "physics", core_hours=hours)
            db.session.commit()

    def warn() -> int:
        with app.app_context():
            return warn_once().given

    def told() -> list[int]:
        with app.app_context():
            return list(
                db.session.scalars(
                    select(Notification.details)
                    .where(Notification.user_id == bob, Notification.kind == kinds.BUDGET_WARNING)
                    .order_by(Notification.id)
                )
            )

    return use, warn, told


def _thresholds(told) -> list[int]:
    return [details["threshold"] for details in told()]


def test_a_window_that_holds_the_same_use_is_warned_about_once_whatever_the_date(physics, clock):
    use, warn, told = physics
    use(85)
    assert warn() == 1
    # Every day while the window holds that day: past the end of a block of 30 days from 1970.
    for day in range(1, 30):
        clock.at = FIRST + timedelta(days=day)
        assert warn() == 0, clock.at
    [details] = told()
    assert (details["threshold"], details["period_days"], details["renews_on"]) == (80, 30, None)


def test_a_use_that_left_the_window_and_comes_back_warns_again_inside_the_same_block(
    physics, clock
):
    use, warn, told = physics
    clock.at = FIRST + timedelta(days=3)
    use(50)
    assert warn() == 0
    clock.at = FIRST + timedelta(days=23)  # the first day of a block of 30 days from 1970
    use(35)  # 85 %
    assert warn() == 1
    clock.at = FIRST + timedelta(days=33)  # the 50 hours left the window: 35 %, re-armed
    assert warn() == 0
    use(50)  # 85 % again, ten days into the same block
    assert warn() == 1
    assert warn() == 0
    assert _thresholds(told) == [80, 80]


def test_a_use_that_dips_just_below_a_threshold_and_comes_back_is_not_told_again(physics, clock):
    use, warn, told = physics
    use(10)
    clock.at = FIRST + timedelta(days=1)
    use(75)  # 85 %
    assert warn() == 1
    clock.at = FIRST + timedelta(days=30)  # the first 10 hours left: 75 %, not below 70 %
    assert warn() == 0
    use(10)  # 85 % again
    assert warn() == 0
    clock.at = FIRST + timedelta(days=31)  # the 75 hours left: 10 %, re-armed
    assert warn() == 0
    use(75)  # 85 %
    assert warn() == 1
    assert _thresholds(told) == [80, 80]


def test_all_of_it_used_again_warns_again_once_the_use_fell_below_90_per_cent(physics, clock):
    use, warn, told = physics
    use(15)
    clock.at = FIRST + timedelta(days=1)
    use(85)  # all of it: one notice, of the higher threshold
    assert warn() == 1
    clock.at = FIRST + timedelta(days=30)  # 85 %: 100 % re-armed, 80 % still given
    assert warn() == 0
    use(15)  # all of it again
    assert warn() == 1
    assert _thresholds(told) == [100, 100]
    clock.at = FIRST + timedelta(days=31)  # 15 %: both re-armed
    assert warn() == 0
    use(80)  # 95 %: 80 % is told, 100 % not reached
    assert warn() == 1
    assert _thresholds(told) == [100, 100, 80]


def test_a_window_of_another_length_warns_afresh(portal, physics, clock):
    use, warn, told = physics
    use(85)
    assert warn() == 1
    assert warn() == 0
    with portal.app.app_context():
        set_budget(None, GROUP, "physics", "cores", 100, 7, "a week")
    assert warn() == 1
    assert [details["period_days"] for details in told()] == [30, 7]


def test_a_calendar_month_warns_once_a_month_as_before(portal, physics, clock):
    use, warn, told = physics
    with portal.app.app_context():
        set_budget(None, GROUP, "physics", "cores", 100, 0, "monthly")
    use(85)
    assert warn() == 1
    clock.at = FIRST + timedelta(days=5)
    assert warn() == 0
    clock.at = datetime(2026, 12, 1, 12, 0)  # a new month, nothing used yet
    assert warn() == 0
    use(80)
    assert warn() == 1
    assert [(d["threshold"], d["renews_on"]) for d in told()] == [
        (80, "2026-12-01"),
        (80, "2027-01-01"),
    ]
    with portal.app.app_context():
        periods = set(db.session.scalars(select(BudgetWarning.period_start)))
    assert periods == {datetime(2026, 11, 1), datetime(2026, 12, 1)}
