"""Budgets passes at the same moment on several hosts (processes) sharing one PostgreSQL
database: each warning is recorded once, and only the pass that recorded it tells anyone, so
every manager gets one notice and one mail per budget, period and threshold."""

from collections import Counter

import pytest
from sqlalchemy import func, select

from app.auth.managers import name_manager
from app.auth.models import User
from app.clock import utcnow
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


def _seed(portal: Portal) -> tuple[list[int], list[int]]:
    """GROUPS groups, each with a budget of 100 core-hours wholly used today (80 and 100 per
    cent reached at once) and two managers; a person with a budget of their own 85 % used."""
    managers = [portal.user("bob", "bob@example.org"), portal.user("carol", "carol@example.org")]
    ada = portal.user("ada", "ada@example.org")
    today = utcnow().date()
    with portal.app.app_context():
        for number in range(GROUPS):
            group = f"group-{number}"
            for manager in managers:
                name_manager(group, db.session.get(User, manager), named_by="admin")
            add_to_totals(DAY, today, ada, group, core_hours=100.0)
            db.session.commit()
            # A rolling window: today is always inside it, whatever the day of the month.
            set_budget(None, GROUP, group, "cores", 100, 30, "term")
        set_budget(None, USER, str(ada), "cores", 100 * GROUPS / 0.85, 30, "term")
    return managers, [ada]


def test_budgets_passes_racing_on_several_hosts_warn_each_person_once(
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
    passes = PROCESSES * APPS_PER_PROCESS * THREADS_PER_APP
    outcomes = race(
        budget_warning_worker.run,
        [(config, str(tmp_path / "instance"), APPS_PER_PROCESS, THREADS_PER_APP)] * PROCESSES,
        parties=passes,
        outcomes=passes,
        method="spawn",
    )
    assert all(isinstance(outcome, int) for outcome in outcomes), outcomes
    # Every budget warned once, by whichever pass got there first.
    assert sum(outcomes) == GROUPS + 1, outcomes
    with portal.app.app_context():
        recorded = Counter(db.session.scalars(select(BudgetWarning.threshold)))
        told = Counter(db.session.scalars(select(Notification.user_id)))
        queued = db.session.scalar(
            select(func.count())
            .select_from(Notification)
            .where(Notification.mail_status == MAIL_QUEUED)
        )
    assert recorded == {80: GROUPS + 1, 100: GROUPS}
    assert told == {managers[0]: GROUPS, managers[1]: GROUPS, ada: 1}
    assert queued == 2 * GROUPS + 1
    assert portal.send().sent == 2 * GROUPS + 1
    mails = smtp_server.wait_for(2 * GROUPS + 1)
    assert set(Counter((m["To"], m["Subject"]) for m in mails).values()) == {1}
