"""The operators' usage page and its exports: everyone's use read once for the chart and the
tables, with the same figures, to the second, as each person's and group's own reading; people
and groups ranked by use a page at a time."""

import re
from datetime import date, datetime

import pytest
from flask_babel import force_locale

from app.clock import set_clock
from app.quotas.usage_charts import owners_in
from app.quotas.usage_marks import account_usage_once
from app.quotas.usage_models import MONTH
from app.quotas.usage_site import site_usage
from app.quotas.usage_totals import usage_per
from tests.clocks import Clock
from tests.conftest import People
from tests.quotas.conftest import Quotas, charge

START = datetime(2026, 10, 30, 10, 0)


@pytest.fixture
def clock():
    at = Clock(START)
    set_clock(at)
    return at


def fold(quotas):
    with quotas.app.app_context():
        account_usage_once()


def rounded(hours):
    return (
        round(hours.core_hours, 6),
        round(hours.memory_gb_hours, 6),
        {model: round(value, 6) for model, value in hours.gpu_hours.items() if value},
    )


def a_few_weeks_of_use(quotas, clock) -> dict:
    """Use of every kind the totals hold at once: folded totals, a piece written down and not
    folded, a mark from before today and one from today, across a month's end."""
    ada = quotas.user("ada", groups=["physics"])
    bob = quotas.user("bob", groups=["physics", "chemistry"])
    cyd = quotas.user("cyd")
    a100 = charge(cores=2, memory=4, gpus=1, gpu_models={"A100": 1})
    quotas.hold(ada, a100, group_name="physics")
    clock.move(hours=1)
    ended = quotas.hold(bob, charge(gpus=2, gpu_models={"T4": 2}), group_name="chemistry")
    clock.move(hours=1)
    quotas.hold(cyd, charge(cores=3, memory=8))
    clock.move(hours=34)  # 31 October 22:00
    quotas.hold(bob, charge(cores=1, gpus=1, gpu_models={"V100": 1}), group_name="physics")
    clock.move(hours=7)  # 1 November 05:00: everything is written down and folded
    fold(quotas)
    clock.move(hours=7)  # bob's T4s end: a piece not folded
    quotas.update(ended, status="deleted")
    clock.move(hours=14)  # 2 November 02:00: the marks date from yesterday
    quotas.hold(ada, a100, group_name="physics")  # and one from today
    clock.move(hours=1, seconds=5)
    return {"ada": ada, "bob": bob, "cyd": cyd}


def test_everyones_use_read_at_once_matches_each_owners_own_reading_to_the_second(quotas, clock):
    a_few_weeks_of_use(quotas, clock)
    first, last = date(2026, 9, 1), date(2026, 11, 1)
    with quotas.app.app_context():
        found = site_usage(first, last, owners_from=date(2026, 10, 1), owners_to=last)
        months = usage_per(MONTH, first, last)
        assert {m: rounded(h) for m, h in found.months.items()} == {
            m: rounded(h) for m, h in months.items()
        }
        for month in (date(2026, 10, 1), date(2026, 11, 1)):
            users, groups = owners_in(found, month)
            by_user = usage_per(MONTH, month, month, by="user")
            by_group = usage_per(MONTH, month, month, by="group")
            assert {u: rounded(h) for u, h in users.items()} == {
                u: rounded(h) for (u, _), h in by_user.items()
            }
            assert {g: rounded(h) for g, h in groups.items()} == {
                g: rounded(h) for (g, _), h in by_group.items() if g
            }
        assert owners_in(found, date(2026, 9, 1)) == ({}, {})
    # ada's first A100 ran from 30 October 10:00: 38 hours in October, and in November until
    # 03:00:05 on the 2nd, when her second had run 1 hour 5 seconds.
    november = found.months[date(2026, 11, 1)]
    assert november.gpu_hours["A100"] == pytest.approx(27 + 1 + 2 * 5 / 3600, abs=1e-9)
    assert found.months[date(2026, 10, 1)].gpu_hours["A100"] == pytest.approx(38, abs=1e-9)
    assert found.months[date(2026, 10, 1)].gpu_hours["T4"] == pytest.approx(2 * 37, abs=1e-9)


def test_a_gpu_model_new_since_the_last_reading_is_counted(quotas, clock):
    user = quotas.user("ada", groups=["physics"])
    quotas.hold(user, charge(gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.move(hours=3)
    fold(quotas)
    this_month = date(2026, 10, 1)
    with quotas.app.app_context():
        assert set(site_usage(this_month, this_month).months[this_month].gpu_hours) == {"A100"}
    quotas.hold(user, charge(gpus=2, gpu_models={"H100": 2}))
    clock.move(hours=3)
    fold(quotas)
    with quotas.app.app_context():
        found = site_usage(this_month, this_month).months[this_month]
    assert rounded(found) == (0.0, 0.0, {"A100": 6.0, "H100": 6.0})


@pytest.fixture
def paged(make_app):
    """An app whose tables show two rows a page, with an operator logged in."""
    app = make_app(QUOTA_USERS_PAGE_SIZE=2)
    people = People(app, app.test_client())
    people.login_as("operator", username="olga")
    return Quotas(app), people.client


def table(page: str, kind: str) -> str:
    return re.search(rf'id="usage-{kind}".*?</nav>|id="usage-{kind}".*?</table>', page, re.S)[0]


def test_the_usage_page_ranks_people_by_use_a_page_at_a_time_with_exact_figures(paged, clock):
    quotas, operator = paged
    for cores in (1, 2, 3, 4):
        quotas.hold(quotas.user(f"cores-{cores}"), charge(cores=cores), group_name="physics")
    quotas.hold(quotas.user("gpu-user"), charge(cores=1, gpus=1, gpu_models={"A100": 1}))
    clock.move(hours=10, minutes=3)

    first = operator.get("/quotas/usage").get_data(as_text=True)
    users = table(first, "users")
    # GPU-hours first, then core-hours: the GPU user, though they hold one core, then 4 cores.
    assert re.findall(r"<tr><td>([^<]+)</td>", users) == ["gpu-user", "cores-4"]
    assert '<td class="text-end">40.2</td>' in users and "A100 10.1" in users
    assert "Page 1 of 3" in users
    following = re.search(r'rel="next" href="([^"]+)"', users)[1].replace("&amp;", "&")
    assert "month=2026-10" in following and "page=2" in following
    second = table(operator.get(following).get_data(as_text=True), "users")
    assert re.findall(r"<tr><td>([^<]+)</td>", second) == ["cores-3", "cores-2"]
    assert '<td class="text-end">30.1</td>' in second
    last = table(operator.get("/quotas/usage?page=9").get_data(as_text=True), "users")
    assert re.findall(r"<tr><td>([^<]+)</td>", last) == ["cores-1"] and "Page 3 of 3" in last
    # One group only: no pages to choose.
    groups = table(first, "groups")
    assert re.findall(r"<tr><td>([^<]+)</td>", groups) == ["physics"]
    assert "Page 1 of" not in groups


def test_the_exports_give_every_owner_and_month_with_the_pages_figures(paged, clock):
    quotas, operator = paged
    ada = quotas.user("ada")
    quotas.hold(ada, charge(cores=2, gpus=1, gpu_models={"A100": 1}), group_name="physics")
    clock.move(days=2, hours=1)  # 1 November 11:00
    body = operator.get("/quotas/usage.json?months=2").get_json()
    assert [m["month"] for m in body["months"]] == ["2026-10", "2026-11"]
    assert [m["gpu_hours"] for m in body["months"]] == [38.0, 11.0]
    assert [(u["month"], u["user"], u["core_hours"]) for u in body["users"]] == [
        ("2026-10", "ada", 76.0),
        ("2026-11", "ada", 22.0),
    ]
    assert [(g["month"], g["group"], g["gpu_hours"]) for g in body["groups"]] == [
        ("2026-10", "physics", 38.0),
        ("2026-11", "physics", 11.0),
    ]
    lines = operator.get("/quotas/usage.csv?months=2").get_data(as_text=True).splitlines()
    assert "2026-11,user,ada,gpu:A100,11.00" in lines
    assert "2026-10,group,physics,cores,76.00" in lines


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_tables_write_figures_as_every_other_quota_figure_is_written(quota_app, language):
    from app.quotas.usage_views import _figure_writer
    from app.quotas.views import quota_number

    values = [0, 0.04, 0.05, 0.25, 0.35, 1, 2.675, 999.95, 1234.5, 98765.449, 12345678.96]
    with quota_app.test_request_context(), force_locale(language):
        figure = _figure_writer()
        assert [figure(v) for v in values] == [quota_number(v, 1) for v in values]
        assert figure(None) == quota_number(None, 1)
