"""How fast the Group page is served for a big group.

A portal of 100,000 deployments among 2,000 people; the group ``physics`` has 200 members,
5,000 deployments running charged to it (each holding, its usage mark written down within the
hour as the worker keeps them), 60 requests waiting in its line, a year of usage totals, a
pool and two budgets; every deployment, deleted or not, has its charge's row, as launches
write them. Its manager's page is fetched through the whole server path in one process (login
check, every query, rendering), with what the app holds once loaded frozen out of the garbage
collector's passes as a gunicorn worker has it: the first page, the last page of the running
deployments, and the list of groups, beside a trivial page (the health check) measured in the
same run. Figures: p50/p95 of wall time per request, on SQLite and, when a server answers on
127.0.0.1:5432, PostgreSQL (target: p95 under 50 ms), with the machine's load average; and,
which a busy machine moves less, the p50 of the process CPU per request and the SQL statements
and Python calls of one request.

``python -m bench.group_page [--quick]``
"""

from __future__ import annotations

import cProfile
import gc
import os
import pstats
import random
import secrets
import statistics
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlalchemy import event

from bench.quotas import PASSWORD, _app, _percentiles, _postgres_url

TOTAL, GROUP_RUNNING, PEOPLE, MEMBERS, WAITING = 100_000, 5_000, 2_000, 200, 60
GROUP = "physics"
NOW = datetime(2026, 11, 20, 12, 0)


def _deployment_row(n: int, user_id: int, group: str, status: str, created: datetime) -> dict:
    gpus = 1 if n % 4 == 0 else 0
    return {
        "uuid": f"{n:08x}-0000-4000-8000-{secrets.token_hex(6)}",
        "user_id": user_id,
        "name": f"run-{n}",
        "template_slug": "jupyter-vm",
        "revision_id": None,
        "template_name": "Jupyter on a virtual machine",
        "template_text": None,
        "parameters": {},
        "secrets_sealed": None,
        "group_name": group,
        "request_options": {},
        "charge": {
            "cores": 4,
            "memory": 8 * 10**9,
            "disk": 0,
            "gpus": gpus,
            "gpu_models": {"A100": 1} if gpus else {},
            "deployments": 1,
        },
        "status": status,
        "backend_data": {},
        "outputs": {},
        "reference_secret": secrets.token_hex(16),
        "adopted": False,
        "created_at": created,
        "submitted_at": created,
        "updated_at": created,
        "check_failures": 0,
        "deleted": status == "deleted",
        "deleted_at": created + timedelta(hours=5) if status == "deleted" else None,
    }


def _fill(app) -> str:
    """The portal written down; returns the manager's username."""
    from app.auth.cli import create_local_user
    from app.auth.managers import name_manager
    from app.auth.models import User
    from app.clock import set_clock
    from app.deployments.models import Deployment
    from app.extensions import db
    from app.lines.models import LineEntry
    from app.quotas.budgets import set_budget
    from app.quotas.charges import charge_rows
    from app.quotas.editing import set_limits
    from app.quotas.models import QuotaCharge, QuotaGpuCharge
    from app.quotas.usage_models import DAY, MONTH, WHOLE_GROUP, UsageMark, UsageTotal

    set_clock(lambda: NOW)
    rng = random.Random(31)
    with app.app_context():
        manager = create_local_user("group-pi", PASSWORD, "Group PI")
        users = []
        for i in range(PEOPLE):
            groups = [GROUP, f"team-{i % 7}"] if i < MEMBERS else [f"group-{i % 10}"]
            users.append(
                {
                    "provider": "local",
                    "subject": f"p{i}",
                    "username": f"person-{i:04d}",
                    "display_name": f"Person {i}",
                    "groups": groups,
                    "group_roles": [],
                    "managed_by_membership": [],
                    "active": True,
                    "session_version": 1,
                    "created_at": NOW,
                }
            )
        db.session.execute(User.__table__.insert(), users)
        db.session.commit()
        name_manager(GROUP, manager, "bench")
        ids = list(db.session.scalars(db.select(User.id).where(User.subject.like("p%"))))
        members, others = ids[:MEMBERS], ids[MEMBERS:]
        rows = []
        group_slots = set(rng.sample(range(TOTAL), GROUP_RUNNING))
        for n in range(TOTAL):
            created = NOW - timedelta(minutes=(TOTAL - n) * 5)
            if n in group_slots:
                rows.append(_deployment_row(n, rng.choice(members), GROUP, "ready", created))
            else:
                status = "ready" if rng.random() < 0.2 else "deleted"
                group = f"group-{rng.randrange(10)}"
                rows.append(_deployment_row(n, rng.choice(others), group, status, created))
        for start in range(0, TOTAL, 5_000):
            db.session.execute(Deployment.__table__.insert(), rows[start : start + 5_000])
        db.session.commit()
        holding = db.session.execute(
            db.select(
                Deployment.id,
                Deployment.user_id,
                Deployment.group_name,
                Deployment.created_at,
                Deployment.charge,
            ).where(Deployment.status == "ready")
        ).all()
        marks = [
            {
                "deployment_id": i,
                "user_id": u,
                "group_name": g or "",
                "since": NOW - timedelta(minutes=rng.randrange(1, 60)),
                "cores": 4.0,
                "memory_gb": 8.0,
                "gpu_models": charged.get("gpu_models") or {},
            }
            for i, u, g, c, charged in holding
        ]
        # Every deployment's charge has its rows, a deleted one's kept, as launches write them
        # (app/quotas/charges.py): the pool's sums join the group's deployments to all of them.
        charges, gpu_charges = [], []
        for i, charged in db.session.execute(db.select(Deployment.id, Deployment.charge)):
            row, gpu_rows = charge_rows(i, charged)
            charges.append(row)
            gpu_charges += gpu_rows
        for start in range(0, len(marks), 5_000):
            db.session.execute(UsageMark.__table__.insert(), marks[start : start + 5_000])
        for table, rows_of in ((QuotaCharge, charges), (QuotaGpuCharge, gpu_charges)):
            for start in range(0, len(rows_of), 5_000):
                db.session.execute(table.__table__.insert(), rows_of[start : start + 5_000])
        totals = []
        for member in members:
            for back in range(12):
                month = date(2026 - (back >= 11), (11 - back - 1) % 12 + 1, 1)
                totals.append(
                    {
                        "span": MONTH,
                        "start": month,
                        "user_id": member,
                        "group_name": GROUP,
                        "gpu_model": "",
                        "core_hours": rng.uniform(100, 900),
                        "memory_gb_hours": rng.uniform(100, 900),
                        "gpu_hours": 0.0,
                    }
                )
                totals.append(
                    {
                        "span": MONTH,
                        "start": month,
                        "user_id": member,
                        "group_name": GROUP,
                        "gpu_model": "A100",
                        "core_hours": 0.0,
                        "memory_gb_hours": 0.0,
                        "gpu_hours": rng.uniform(0, 90),
                    }
                )
            for back in range(1, 40):
                day = NOW.date() - timedelta(days=back)
                totals.append(
                    {
                        "span": DAY,
                        "start": day,
                        "user_id": member,
                        "group_name": GROUP,
                        "gpu_model": "",
                        "core_hours": rng.uniform(1, 30),
                        "memory_gb_hours": rng.uniform(1, 30),
                        "gpu_hours": 0.0,
                    }
                )
                totals.append(
                    {
                        "span": DAY,
                        "start": day,
                        "user_id": member,
                        "group_name": GROUP,
                        "gpu_model": "A100",
                        "core_hours": 0.0,
                        "memory_gb_hours": 0.0,
                        "gpu_hours": rng.uniform(0, 3),
                    }
                )
        for start in range(0, len(totals), 5_000):
            db.session.execute(UsageTotal.__table__.insert(), totals[start : start + 5_000])
        # The group's own rows, as folding keeps them beside its members'.
        db.session.execute(
            db.text(
                "INSERT INTO usage_totals (span, start, user_id, group_name, gpu_model, "
                "core_hours, memory_gb_hours, gpu_hours) SELECT span, start, :whole, "
                "group_name, gpu_model, SUM(core_hours), SUM(memory_gb_hours), SUM(gpu_hours) "
                "FROM usage_totals WHERE group_name != '' GROUP BY span, start, group_name, "
                "gpu_model"
            ),
            {"whole": WHOLE_GROUP},
        )
        waiting = []
        for n in range(WAITING):
            created = NOW - timedelta(hours=WAITING - n)
            waiting.append(
                _deployment_row(TOTAL + n, rng.choice(members), GROUP, "WAITING", created)
            )
        db.session.execute(Deployment.__table__.insert(), waiting)
        waiting_ids = db.session.scalars(
            db.select(
                Deployment.id,
            ).where(Deployment.status == "WAITING")
        ).all()
        db.session.execute(
            LineEntry.__table__.insert(),
            [
                {
                    "deployment_id": i,
                    "user_id": members[k % MEMBERS],
                    "line": f"group:{GROUP}:gpus:A100",
                    "enqueued_at": NOW - timedelta(hours=WAITING - k),
                    "fair_at": NOW - timedelta(hours=WAITING - k),
                    "expires_at": NOW + timedelta(days=3),
                    "recent_gpu_hours": 0.0,
                    "options": {},
                    "reason": "",
                }
                for k, i in enumerate(waiting_ids)
            ],
        )
        db.session.commit()
        set_limits(None, "group", GROUP, {"cores": 25_000, "gpus": 2_000}, "bench")
        set_limits(None, "member", GROUP, {"gpus": 8}, "bench")
        set_budget(None, "group", GROUP, "gpus:A100", 50_000, 0, "bench")
        set_budget(None, "group", GROUP, "cores", 2_000_000, 30, "bench")
        username = manager.username
        db.session.remove()
    return username


def _time(run, rounds: int) -> tuple[float, float, float]:
    """p50 and p95 of the wall time of ``run``, and the p50 of its process CPU (which a
    machine shared with other work moves less)."""
    run()  # warm: statements built, caches filled
    walls, cpus = [], []
    for _ in range(rounds):
        started, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return (*_percentiles(walls), statistics.median(cpus))


def _counts(run, engine) -> tuple[int, int]:
    """The SQL statements and the Python calls of one ``run``: counts, not times, so the
    same on a busy machine."""
    statements = []

    def count(*_args) -> None:
        statements.append(1)

    event.listen(engine, "before_cursor_execute", count)
    try:
        run()
    finally:
        event.remove(engine, "before_cursor_execute", count)
    profile = cProfile.Profile()
    profile.runcall(run)
    return len(statements), pstats.Stats(profile).total_calls


def figures(url: str, instance: Path, rounds: int) -> dict:
    from app.extensions import db
    from tests.conftest import csrf_from

    app = _app(url, instance)
    started = time.perf_counter()
    username = _fill(app)
    found = {"fill": time.perf_counter() - started}
    if url.startswith("postgresql"):
        # What autovacuum does within a minute of a bulk write: the planner's statistics and
        # the visibility map that lets index-only scans skip the rows.
        with app.app_context(), db.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")
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

    def fetch(address):
        def run():
            answer = client.get(address)
            assert answer.status_code == 200, (address, answer.status_code)
            found.setdefault(address + " bytes", len(answer.data))

        return run

    last = (GROUP_RUNNING + 24) // 25
    with app.app_context():
        engine = db.engine
    # As a worker does once loaded (config/gunicorn.conf.py's ``post_worker_init``): what the
    # app holds is left out of the collector's full passes, which would otherwise walk it.
    fetch(f"/groups/{GROUP}")()
    gc.collect()
    gc.freeze()
    for label, address in (
        ("a trivial page (/healthz)", "/healthz"),
        ("the group's page", f"/groups/{GROUP}"),
        (f"its running deployments, page {last}", f"/groups/{GROUP}?running={last}"),
        ("the list of groups", "/groups/"),
    ):
        timed = _time(fetch(address), rounds)
        found[label] = (*timed, *_counts(fetch(address), engine), found[address + " bytes"])
    gc.unfreeze()
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    return found


def _print(label: str, found: dict) -> None:
    print(f"  {label}: wrote the portal in {found['fill']:.1f} s")
    for key, value in found.items():
        if isinstance(value, tuple):
            p50, p95, cpu, statements, calls, size = value
            print(
                f"    {key:<38} p50 {p50:7.2f} ms, p95 {p95:7.2f} ms, CPU p50 {cpu:6.2f} ms, "
                f"{statements:2d} statements, {calls:6,d} Python calls, {size / 1024:5.1f} KB"
            )


def main(quick: bool = False) -> None:
    rounds = 20 if quick else 100
    print(
        f"Group page: {MEMBERS} members, {GROUP_RUNNING:,} running of {TOTAL:,} deployments, "
        f"{WAITING} waiting (target: p95 < 50 ms); load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="portal-bench-group-") as tmp:
        tmp = Path(tmp)
        _print("SQLite", figures(f"sqlite:///{tmp / 'g.sqlite'}", tmp / "i1", rounds))
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
