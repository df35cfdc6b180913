"""Budgets passes at the same moment on several hosts (processes) sharing one PostgreSQL
database: each warning is recorded once, and only the pass that recorded it tells anyone, so
every manager gets one notice and one mail per crossing of a threshold. Rolling windows: a
window that still holds the same use is not warned about again, whatever the date; one whose
use left it is re-armed once, and warns once more when it is used again."""

from collections import Counter
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.auth.managers import name_manager
from app.auth.models import User
from app.extensions import db
from app.notifications.models import MAIL_QUEUED, Notification
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP, USER
from app.quotas.usage_marks import add_to_totals
from app.quotas.usage_models import DAY, BudgetWarning
from tests.conftest import TEST_CONFIG
from tests.notifications import budget_warning_worker
from tests.notifications.conftest import Portal
from tests.processes import race

PROCESSES, APPS_PER_PROCESS, THREADS_PER_APP = 3, 2, 2  # 12 passes at once
GROUPS = 10
WINDOW = 30
# The day the budgets are first used (7 days into a block of 30 days counted from 1970), and
# the day they are used again, once the first use has left the window.
USED = datetime(2026, 11, 10, 12, 0)
USED_AGAIN = USED + timedelta(days=40)


def _seed(portal: Portal) -> tuple[list[int], list[int]]:
    """GROUPS groups, each with a budget of 100 core-hours over 30 rolling days wholly used on
    each of USED and USED_AGAIN (80 and 100 per cent reached at once) and two managers; a
    person with a budget of their own 85 % used on each of those days."""
    managers = [portal.user("bob", "bob@example.org"), portal.user("carol", "carol@example.org")]
    ada = portal.user("ada", "ada@example.org")
    with portal.app.app_context():
        for number in range(GROUPS):
            group = f"group-{number}"
            for manager in managers:
                name_manager(group, db.session.get(User, manager), named_by="admin")
            for day in (USED, USED_AGAIN):
                add_to_totals(DAY, day.date(), ada, group, core_hours=100.0)
            db.session.commit()
            set_budget(None, GROUP, group, "cores", 100, WINDOW, "term")
        set_budget(None, USER, str(ada), "cores", 100 * GROUPS / 0.85, WINDOW, "term")
    return managers, [ada]


def test_budgets_passes_racing_on_several_hosts_warn_each_person_once_per_crossing(
    make_app, database, database_url, smtp_server, tmp_path
):
    if database != "postgresql":
        pytest.skip(
            "several hosts share PostgreSQL; tests/notifications/test_budget_warnings.py "
            "runs the warnings on SQLite"
        )
    settings = smtp_server.settings()
    portal = Portal(make_app(SQLALCHEMY_DATABASE_URI=database_url, **settings))
    managers, [ada] = _seed(portal)
    with portal.app.app_context():
        db.engine.dispose()  # no pooled connection is shared with the hosts
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url, **settings}
    moments = [
        USED,  # used: warned
        # The window's last day with that use: a block of 30 days from 1970 began meanwhile.
        USED + timedelta(days=WINDOW - 1),
        USED + timedelta(days=WINDOW),  # the use left the window: re-armed, no one told
        USED_AGAIN,  # used again: warned again
    ]
    passes = PROCESSES * APPS_PER_PROCESS * THREADS_PER_APP
    outcomes = race(
        budget_warning_worker.run,
        [(config, str(tmp_path / "instance"), APPS_PER_PROCESS, THREADS_PER_APP, moments)]
        * PROCESSES,
        parties=passes,
        outcomes=passes,
        method="spawn",
    )
    assert all(isinstance(outcome, list) for outcome in outcomes), outcomes
    # Every budget warned once per crossing, by whichever pass got there first.
    per_moment = [sum(given) for given in zip(*outcomes, strict=True)]
    assert per_moment == [GROUPS + 1, 0, 0, GROUPS + 1], outcomes
    with portal.app.app_context():
        recorded = Counter(db.session.scalars(select(BudgetWarning.threshold)))
        rearmed = db.session.scalar(
            select(func.count())
            .select_from(BudgetWarning)
            .where(BudgetWarning.rearmed_at.is_not(None))
        )
        keys = set(db.session.scalars(select(BudgetWarning.period_start)))
        told = Counter(db.session.scalars(select(Notification.user_id)))
        queued = db.session.scalar(
            select(func.count())
            .select_from(Notification)
            .where(Notification.mail_status == MAIL_QUEUED)
        )
    # Only the latest crossing of each threshold is kept; its key is when the one before it
    # was re-armed.
    assert recorded == {80: GROUPS + 1, 100: GROUPS}
    assert rearmed == 0 and keys == {USED + timedelta(days=WINDOW)}
    assert told == {managers[0]: 2 * GROUPS, managers[1]: 2 * GROUPS, ada: 2}
    mails = 2 * (2 * GROUPS + 1)
    assert queued == mails
    assert portal.send().sent == mails
    received = smtp_server.wait_for(mails)
    assert Counter(m["To"] for m in received) == {
        "bob@example.org": 2 * GROUPS,
        "carol@example.org": 2 * GROUPS,
        "ada@example.org": 2,
    }
