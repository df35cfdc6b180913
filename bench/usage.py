"""How fast usage over time and budgets are read.

A year of 100,000 deployments among 200 people in 10 groups (three GPU models), written down
as the running totals hold them (closed stretches folded by the worker's pass), plus 300
deployments running now, started over the last two days, their use written down by the
worker's hourly pass half an hour ago. Figures printed, on SQLite and, when a server answers on
127.0.0.1:5432, PostgreSQL:
- folding the year's 100,000 stretches into daily and monthly totals (the worker's pass);
- the usage charts: one person's twelve months (the Account page), one group's, the whole
  site's with its per-user and per-group month (read as the operators' usage page reads
  them), p50/p95 (target: under 30 ms); the Account page and the operators' usage page served
  whole through the test client, the clock a second later at each request so that the running
  deployments' figures change as they do in use (none is a formatted figure kept from the
  request before);
- ``budget_left`` for a launch meeting three budgets (a person's core-hours, a group's A100
  and any-model GPU-hours), p50/p95 (target: under 2 ms);
- what those three budgets add to the launch form's cost box served whole (two A100 GPUs
  charged to the group): its CPU per request with the budgets minus the same box with none,
  the medians of blocks of requests asked one after the other, with the Python calls and SQL
  statements they add (target: under 2 ms);
- ``GET /api/v1/usage`` of a group over 90 days.
"""

from __future__ import annotations

import itertools
import random
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from bench.catalogue import ROOT
from bench.quotas import PASSWORD, _app, _percentiles, _postgres_url

DEPLOYMENTS, PEOPLE, GROUPS, RUNNING = 100_000, 200, 10, 300
MODELS = ("A100", "T4", "V100")
NOW = datetime(2026, 11, 20, 12, 0)
LAST_PASS = NOW - timedelta(minutes=30)


def _fill(app) -> dict:
    """The year written down; returns figures of the filling and who to ask about."""
    from app.auth.cli import create_local_user
    from app.auth.models import User
    from app.clock import set_clock
    from app.extensions import db
    from app.quotas.usage_marks import account_usage_once, fold_pieces
    from app.quotas.usage_models import UsageMark, UsagePiece
    from tests.quotas.conftest import charge, new_deployment

    set_clock(lambda: NOW)
    rng = random.Random(31)
    with app.app_context():
        people = []
        for i in range(PEOPLE):
            # One person logs in (the Account page is served to them); the others need no
            # password, whose hashing would only slow the filling down.
            if i == 7:
                user = create_local_user(f"person-{i}", PASSWORD, f"Person {i}")
            else:
                user = User(provider="local", subject=f"person-{i}", username=f"person-{i}")
                db.session.add(user)
            user.groups = [f"group-{i % GROUPS}"]
            db.session.flush()
            people.append(user.id)
        db.session.commit()
        year_start = NOW - timedelta(days=365)
        rows = []
        for _ in range(DEPLOYMENTS):
            person = rng.randrange(PEOPLE)
            start = year_start + timedelta(minutes=rng.randrange(365 * 24 * 60))
            end = min(start + timedelta(minutes=rng.randrange(30, 72 * 60)), NOW)
            gpus = rng.choice((0, 0, 1, 2, 4))
            rows.append(
                {
                    "user_id": people[person],
                    "group_name": f"group-{person % GROUPS}",
                    "start": start,
                    "end": end,
                    "cores": float(rng.choice((1, 2, 4, 8, 16))),
                    "memory_gb": float(rng.choice((2, 4, 8, 16, 64))),
                    "gpu_models": {rng.choice(MODELS): gpus} if gpus else {},
                }
            )
        for chunk in range(0, len(rows), 5000):
            db.session.execute(UsagePiece.__table__.insert(), rows[chunk : chunk + 5000])
        db.session.commit()
        started = time.perf_counter()
        folded = 0
        while True:
            done = fold_pieces(5000)
            folded += done
            if not done:
                break
        fold_seconds = time.perf_counter() - started
        # What runs now: real deployments (their marks made by the listeners).
        for i in range(RUNNING):
            person = people[i % PEOPLE]
            set_clock(lambda i=i: NOW - timedelta(hours=1 + i % 48))
            deployment = new_deployment(person, group_name=f"group-{i % GROUPS}")
            deployment.status = "ready"
            deployment.charge = charge(cores=4, gpus=1, gpu_models={MODELS[i % 3]: 1})
            db.session.add(deployment)
            db.session.commit()
        # The worker's last hourly pass, half an hour ago, wrote their use down and folded
        # it: what runs is marked from then on (from its start, for the one started since),
        # as in use, where a mark begun before today is left only by a late worker.
        set_clock(lambda: LAST_PASS)
        account_usage_once(LAST_PASS)
        set_clock(lambda: NOW)
        marks = db.session.query(UsageMark).count()
        db.session.remove()
    return {"folded": folded, "fold_seconds": fold_seconds, "marks": marks, "people": people}


def _time(run, rounds: int) -> tuple[float, float, float, float]:
    """p50 and p95 of wall time, then of this process's CPU time, in ms. Both: on a shared
    machine the wall time also counts the waits for a CPU the others hold, and the database
    server's work shows only in the wall time (PostgreSQL runs in its own processes)."""
    run()  # warm: statements built, caches filled
    walls, cpus = [], []
    for _ in range(rounds):
        started, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return (*_percentiles(walls), *_percentiles(cpus))


def figures(url: str, instance: Path, rounds: int) -> dict:
    from flask import render_template_string

    from app.auth.cli import create_local_user
    from app.auth.models import User
    from app.auth.operations import grant_role
    from app.catalogue.operations import import_folder
    from app.clock import set_clock
    from app.extensions import db
    from app.quotas.budgets import budget_left, set_budget
    from app.quotas.usage_charts import chart_of, last_months, months_chart, owners_in
    from app.quotas.usage_site import site_usage
    from tests.quotas.conftest import charge

    app = _app(url, instance)
    with app.app_context():
        import_folder(ROOT / "tosca-catalog", author="bench")  # for the cost box
    filled = _fill(app)
    found = {"fill": filled}
    person_id = filled["people"][7]
    chart_page = (
        '{% from "quotas/_usage_chart.html" import usage_charts %}'
        "{{ usage_charts(chart, 'GPU-hours', 'Core-hours', 'bench') }}"
    )
    with app.test_request_context("/account/"):
        found["person"] = _time(lambda: months_chart(user_id=person_id), rounds)
        found["group"] = _time(lambda: months_chart(group_name="group-7"), rounds)

        def site():
            months = last_months()
            found = site_usage(months[0], months[-1], owners_from=months[-1], owners_to=months[-1])
            chart_of(found.months, months)
            owners_in(found, months[-1])

        found["site"] = _time(site, rounds)
        found["rendered"] = _time(
            lambda: render_template_string(chart_page, chart=months_chart(user_id=person_id)),
            rounds,
        )
        person = db.session.get(User, person_id)
        set_budget(None, "user", str(person_id), "cores", 10_000, 0, "bench")
        set_budget(None, "group", "group-7", "gpus:A100", 5_000, 0, "bench")
        set_budget(None, "group", "group-7", "gpus", 20_000, 30, "bench")
        request = charge(cores=8, gpus=2, gpu_models={"A100": 2})
        found["budget"] = _time(lambda: budget_left(person, "group-7", request, 24), rounds * 3)
        db.session.remove()
    client = _logged_in(app, "person-7")
    found["box"] = box_figures(app, client, person_id, rounds)
    assert client.get("/account/").status_code == 200
    found["account_page"] = _time(lambda: client.get("/account/"), max(rounds // 4, 10))
    with app.app_context():
        operator = create_local_user("olga", PASSWORD, "Olga")
        grant_role(operator, "operator", granted_by="bench")
        db.session.commit()
    client = _logged_in(app, "olga")
    page = client.get("/quotas/usage")
    assert page.status_code == 200 and "person-" in page.get_data(as_text=True)
    ticks = itertools.count(1)

    def usage_page():
        later = NOW + timedelta(seconds=next(ticks))
        set_clock(lambda: later)
        assert client.get("/quotas/usage").status_code == 200

    found["usage_page"] = _time(usage_page, max(rounds // 2, 20))
    set_clock(lambda: NOW)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    return found


def _statements(app) -> list[int]:
    """A counter of the SQL statements the app sends (``[count]``)."""
    from sqlalchemy import event

    from app.extensions import db

    sent = [0]

    def count(*_args):
        sent[0] += 1

    with app.app_context():
        event.listen(db.engine, "before_cursor_execute", count)
    return sent


def box_figures(app, client, person_id: int, rounds: int) -> dict:
    """The cost box of two A100 GPUs charged to the person's group, with the three budgets of
    ``figures`` and with none: CPU ms (medians of alternating blocks), Python calls and SQL
    statements per request, each as (with, without)."""
    import cProfile
    import pstats
    import statistics

    from app.extensions import db
    from app.quotas.budgets import budgets_of, set_budget
    from app.quotas.models import GROUP, USER
    from bench.forms import FormFields

    slug = "jupyter-ml-gpu"
    fields = FormFields()
    fields.feed(client.get(f"/catalogue/{slug}/").get_data(as_text=True))
    form = {**fields.fields, "num_gpus": "2", "gpu_model": "A100", "group": "group-7"}
    headers = {"HX-Request": "true", "X-CSRFToken": form.get("csrf_token", "")}

    def box():
        answer = client.post(f"/catalogue/{slug}/summary", data=form, headers=headers)
        assert answer.status_code == 200, answer.status_code

    with app.app_context():
        budgets = [
            (b.scope, b.subject, b.resource, b.hours, b.period_days)
            for b in budgets_of(USER, str(person_id)) + budgets_of(GROUP, "group-7")
        ]

    def budgeted(on: bool) -> None:
        with app.app_context():
            for scope, subject, resource, hours, period in budgets:
                set_budget(None, scope, subject, resource, hours if on else None, period, "b")
        for _ in range(5):  # warm: statements of this shape built
            box()

    sent = _statements(app)
    found = {"cpu": ([], []), "calls": [], "statements": []}
    for on in (True, False):
        budgeted(on)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(10):
            box()
        profiler.disable()
        found["calls"].append(pstats.Stats(profiler).total_calls / 10)
        before = sent[0]
        box()
        found["statements"].append(sent[0] - before)
    for _ in range(6):  # blocks one after the other, so that the machine's load moves both
        for on in (True, False):
            budgeted(on)
            times = []
            for _ in range(max(rounds // 2, 10)):
                start = time.process_time()
                box()
                times.append((time.process_time() - start) * 1000)
            found["cpu"][0 if on else 1].append(statistics.median(times))
    budgeted(True)
    with app.app_context():
        db.session.remove()
    found["cpu"] = tuple(statistics.median(block) for block in found["cpu"])
    return found


def _logged_in(app, username: str):
    """A test client logged in as ``username`` through the login form."""
    from tests.conftest import csrf_from

    client = app.test_client()
    page = client.get("/login")
    client.post(
        "/login",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "username": username,
            "password": PASSWORD,
            "method": "local",
        },
    )
    return client


def _print(label: str, found: dict) -> None:
    fill = found["fill"]
    print(
        f"  {label}: folded {fill['folded']:,} stretches of a year into totals in "
        f"{fill['fold_seconds']:.1f} s ({fill['folded'] / fill['fold_seconds']:,.0f}/s); "
        f"{fill['marks']} running"
    )
    for key, words in (
        ("person", "one person's 12 months (Account page chart)"),
        ("group", "one group's 12 months"),
        ("site", "whole site's 12 months + a month per user and group"),
        ("rendered", "one person's chart, read and rendered"),
        ("account_page", "the Account page served whole"),
        ("usage_page", "the operators' usage page served whole"),
        ("budget", "budget_left, three budgets"),
    ):
        p50, p95, cpu50, cpu95 = found[key]
        print(
            f"    {words:<53} wall p50 {p50:7.2f} p95 {p95:7.2f} ms; "
            f"CPU p50 {cpu50:6.2f} p95 {cpu95:6.2f} ms"
        )
    box = found["box"]
    (cpu_with, cpu_without), (calls_with, calls_without) = box["cpu"], box["calls"]
    statements_with, statements_without = box["statements"]
    print(
        f"    {'the cost box, three budgets minus none':<53} CPU {cpu_with:6.2f} - "
        f"{cpu_without:6.2f} = {cpu_with - cpu_without:5.2f} ms; calls {calls_with:,.0f} - "
        f"{calls_without:,.0f} = {calls_with - calls_without:,.0f}; statements "
        f"{statements_with} - {statements_without} = {statements_with - statements_without}"
    )


def main(quick: bool = False) -> None:
    rounds = 20 if quick else 100
    print("Usage over time and budgets (targets: charts < 30 ms, budget < 2 ms)")
    with tempfile.TemporaryDirectory(prefix="portal-bench-usage-") as tmp:
        tmp = Path(tmp)
        _print("SQLite", figures(f"sqlite:///{tmp / 'u.sqlite'}", tmp / "i1", rounds))
        postgres = _postgres_url(tmp)
        if postgres:
            url, drop = postgres
            try:
                _print("PostgreSQL", figures(url, tmp / "i2", rounds))
            finally:
                drop()


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
