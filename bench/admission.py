"""How long the line's admission pass takes when nothing can be admitted.

Figures printed: one pass of ``admit_once`` over 10,000 waiting requests (from 1,000 people in
20 groups, each group's pool of A100s full) among 100,000 deployments, median wall and CPU
milliseconds, on SQLite and, when a server answers on 127.0.0.1:5432, PostgreSQL (target:
under 200 ms): "full", planned from scratch as after any change, and "unchanged", a pass
that finds nothing changed since its last full one started nothing (the steady state while
the pools stay full). Every request stays waiting: the pools are full. And the check a
person's launch makes against the line (``app.lines.ahead``), which the launch form's box
makes on every change.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.catalogue import CONFIG
from bench.quotas import _postgres_url

PEOPLE, GROUPS, DEPLOYMENTS, WAITING = 1_000, 20, 100_000, 10_000


def _app(url: str, instance: Path):
    from app import create_app
    from app.extensions import db

    config = {**CONFIG, "SQLALCHEMY_DATABASE_URI": url, "ORCHESTRATOR_URL": "demo"}
    app = create_app(config, instance_path=str(instance))
    with app.app_context():
        db.create_all()
    return app


def _charge(gpus: int) -> dict:
    return {
        "cores": 4,
        "memory": 16 * 10**9,
        "disk": 0,
        "gpus": gpus,
        "gpu_models": {"A100": gpus} if gpus else {},
        "deployments": 1,
        "nodes": 1,
        "summary": "",
        "uncounted": [],
    }


def fill(app, deployments: int, waiting: int) -> None:
    """People in groups with pools of 8 A100s, ``deployments`` holding (most with a GPU),
    and ``waiting`` requests of one A100 each, in line."""
    from sqlalchemy import insert

    from app.auth.models import User
    from app.clock import utcnow
    from app.deployments.models import Deployment
    from app.extensions import db
    from app.lines.models import LineEntry
    from app.quotas.editing import parse_limit, set_limits
    from app.quotas.models import QuotaCharge, QuotaGpuCharge

    now = utcnow()
    with app.app_context():
        db.session.execute(
            insert(User),
            [
                {
                    "provider": "local",
                    "subject": f"p{n}",
                    "username": f"p{n}",
                    "groups": [f"g{n % GROUPS}"],
                    "group_roles": [],
                }
                for n in range(PEOPLE)
            ],
        )
        for g in range(GROUPS):
            set_limits(None, "group", f"g{g}", {"gpus": parse_limit("gpus", "8")}, "bench")
        user_ids = list(db.session.scalars(db.select(User.id).order_by(User.id)))

        def rows(count: int, status: str, start: int):
            for i in range(start, start + count):
                user_id = user_ids[i % PEOPLE]
                gpus = 0 if status == "ready" and i % 7 == 0 else 1
                yield {
                    "user_id": user_id,
                    "name": f"d{i}",
                    "template_slug": "gpu",
                    "template_name": "GPU",
                    "parameters": {},
                    "request_options": {},
                    "outputs": {},
                    "charge": _charge(gpus),
                    "group_name": f"g{(i % PEOPLE) % GROUPS}",
                    "status": status,
                    "keeps_failed_attempt": False,
                    "runs_once": False,
                    "adopted": False,
                    "check_failures": 0,
                    "deleted": False,
                    "created_at": now - timedelta(minutes=i % 600),
                    "updated_at": now,
                    "submitted_at": now if status == "ready" else None,
                }

        for status, count, start in (("ready", deployments, 0), ("WAITING", waiting, deployments)):
            batch = list(rows(count, status, start))
            for first in range(0, len(batch), 10_000):
                db.session.execute(insert(Deployment), batch[first : first + 10_000])
        ids = db.session.execute(
            db.select(Deployment.id, Deployment.user_id, Deployment.status, Deployment.charge)
        ).all()
        db.session.execute(
            insert(QuotaCharge),
            [
                {
                    "deployment_id": i,
                    "cores": 4,
                    "memory": 16 * 10**9,
                    "disk": 0,
                    "gpus": charge["gpus"],
                }
                for i, _user, _status, charge in ids
            ],
        )
        db.session.execute(
            insert(QuotaGpuCharge),
            [
                {"deployment_id": i, "model": "A100", "count": 1}
                for i, _user, _status, charge in ids
                if charge["gpus"]
            ],
        )
        db.session.execute(
            insert(LineEntry),
            [
                {
                    "deployment_id": i,
                    "user_id": user,
                    "line": f"group:g{n % GROUPS}:gpus:",
                    "enqueued_at": now - timedelta(seconds=n),
                    "fair_at": now - timedelta(seconds=n),
                    "expires_at": now + timedelta(days=3),
                    "recent_gpu_hours": 0.0,
                    "options": {},
                    "reason": "",
                }
                for n, (i, user, status, _charge) in enumerate(ids)
                if status == "WAITING"
            ],
        )
        db.session.commit()


def timed(app, rounds: int) -> dict:
    """Median wall and CPU ms of a full pass (planned from scratch, as after any change: the
    remembered idle plan forgotten before each round) and of a pass that finds nothing
    changed since its last full one started nothing."""
    from app.launch.admission import admit_once
    from app.lines.admission import _IDLE

    figures = {}
    with app.app_context():
        for kind in ("full", "unchanged"):
            times, cpu = [], []
            for _ in range(rounds):
                if kind == "full":
                    app.extensions.pop(_IDLE, None)
                started, started_cpu = time.perf_counter(), time.process_time()
                result = admit_once()
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
                assert result.admitted == 0, result
            figures[kind] = (statistics.median(times), statistics.median(cpu), result.waiting)
    return figures


def timed_launch_check(app, rounds: int) -> float:
    """Median ms of the check a launch (and the launch form's box) makes against the line: a
    person of a group with 500 requests waiting for its pool (``ahead.line_ahead``)."""
    from app.auth.models import User
    from app.extensions import db
    from app.lines.ahead import line_ahead

    with app.app_context():
        user_id = db.session.scalar(db.select(User.id).where(User.username == "p1"))
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            kept = line_ahead(user_id, "g1", _charge(1))
            times.append((time.perf_counter() - started) * 1000)
            db.session.rollback()
            assert kept is not None and kept.waiting == WAITING // GROUPS, kept
    return statistics.median(times)


def _analyze(app) -> None:
    """Statistics for the planner, as autovacuum gathers them after a bulk change on a live
    database: the bench does not wait for it."""
    from sqlalchemy import text

    from app.extensions import db

    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            with db.engine.connect() as connection:
                connection.execute(text("ANALYZE"))
                connection.commit()


def run(url: str, folder: Path, label: str, rounds: int) -> None:
    app = _app(url, folder / "instance")
    started = time.perf_counter()
    fill(app, DEPLOYMENTS, WAITING)
    _analyze(app)
    filled = time.perf_counter() - started
    figures = timed(app, rounds)
    for kind, (wall, cpu, waiting) in figures.items():
        print(
            f"admission pass, {label}, {kind}: {wall:.0f} ms wall, {cpu:.0f} ms CPU "
            f"({waiting:,} waiting, none admitted, {DEPLOYMENTS:,} deployments; target under "
            f"200 ms)"
        )
    check = timed_launch_check(app, rounds)
    print(
        f"a launch's check against the line, {label}: {check:.1f} ms "
        f"({WAITING // GROUPS} waiting ahead in its group)"
    )
    print(f"  (filled in {filled:.0f} s)")
    from app.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def main(quick: bool = False) -> None:
    rounds = 3 if quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run(f"sqlite:///{folder}/bench.sqlite", folder, "SQLite", rounds)
        postgres = _postgres_url(folder)
        if postgres is None:
            print("admission pass, PostgreSQL: skipped (no server on 127.0.0.1:5432)")
            return
        url, drop = postgres
        try:
            run(url, folder, "PostgreSQL", rounds)
        finally:
            drop()


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
