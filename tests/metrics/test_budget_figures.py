"""/metrics gives each group budget and what is used of it this period, per group only."""

from datetime import datetime, timedelta

from app.clock import set_clock
from app.extensions import db
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP, USER
from tests.metrics.test_figures import _person
from tests.quotas.conftest import charge, new_deployment


def test_group_budgets_and_their_use_are_scraped_and_no_persons_budget_is(app, scrape):
    now = {"at": datetime(2026, 11, 20, 8, 0)}
    set_clock(lambda: now["at"])
    ada = _person(app, "ada", groups=["physics"])
    with app.app_context():
        deployment = new_deployment(ada, group_name="physics")
        deployment.status = "ready"
        deployment.charge = charge(cores=4, gpus=2, gpu_models={"A100": 2})
        db.session.add(deployment)
        db.session.commit()
        set_budget(None, GROUP, "physics", "gpus:A100", 100, 0, "grant")
        set_budget(None, GROUP, "physics", "cores", 1000, 30, "grant")
        set_budget(None, USER, str(ada), "gpus", 5, 0, "course")
    now["at"] += timedelta(hours=3)
    scraped = scrape()
    month = {"group": "physics", "resource": "gpus:A100", "period": "month"}
    assert scraped.value("portal_budget_group_hours", **month) == 100
    assert scraped.value("portal_budget_group_used_hours", **month) == 6
    rolling = {"group": "physics", "resource": "cores", "period": "30d"}
    assert scraped.value("portal_budget_group_used_hours", **rolling) == 12
    assert len(list(scraped.samples("portal_budget_group_hours"))) == 2
    assert scraped.value("portal_metrics_collector_up", collector="budget") == 1
