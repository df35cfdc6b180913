"""Launches at the same moment, from two processes sharing one database, against one group's
budget: the decision reads the budget under the quotas' locks, so never more projected use is
admitted than the budget, and every launch is answered."""

from sqlalchemy import func, select

from app.deployments.models import Deployment
from app.extensions import db
from app.leases.editing import parse_field, set_policy
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP
from app.quotas.usage_models import CORE_HOURS
from tests.conftest import TEST_CONFIG
from tests.launch import budget_race_worker
from tests.processes import race
from tests.quotas.conftest import Quotas

PROCESSES, APPS_PER_PROCESS, THREADS_PER_APP = 2, 2, 5  # 20 launches at once


def test_twenty_launches_at_once_never_admit_more_projected_use_than_the_groups_budget(
    make_app, database_url, tmp_path
):
    quotas = Quotas(make_app(SQLALCHEMY_DATABASE_URI=database_url))
    user = quotas.user(groups=["physics"])
    with quotas.app.app_context():
        set_policy(None, None, None, {"default": parse_field("default", "3h")}, "course")
        # A rolling window never renews: each launch needs 2 cores for 3 hours, 6 core-hours;
        # 33 hold five of them, with room to spare for the minutes the race itself takes.
        set_budget(None, GROUP, "physics", CORE_HOURS, 33, 30, "term")
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    arguments = (config, str(tmp_path / "instance"), user, "physics")
    launches = PROCESSES * APPS_PER_PROCESS * THREADS_PER_APP
    outcomes = race(
        budget_race_worker.run,
        [(*arguments, APPS_PER_PROCESS, THREADS_PER_APP)] * PROCESSES,
        parties=launches,
        outcomes=launches,
        method="spawn",
    )
    assert not [o for o in outcomes if o not in ("start", "budget")], outcomes
    assert outcomes.count("start") == 5, outcomes
    assert outcomes.count("budget") == launches - 5
    with quotas.app.app_context():
        started = db.session.scalar(select(func.count()).select_from(Deployment))
    assert started == 5
