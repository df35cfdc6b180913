"""How long one lease expiry pass takes, and what its cost follows.

Figures printed, on PostgreSQL when a server answers on 127.0.0.1:5432 (else SQLite): one pass
of ``expire_once`` over 100,000 deployments holding 10,000 running leases of which 100 are due
(a warning each; target: at most 200 ms), then the same with 1,000 due, and with 100 due in a
table ten times smaller, to show that the cost follows what is due, not the table. Deletes at
expiry, which wait for the orchestrator, are not part of these figures.
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


def _app(url: str, instance: Path):
    from app import create_app
    from app.extensions import db

    app = create_app({**CONFIG, "SQLALCHEMY_DATABASE_URI": url}, instance_path=str(instance))
    with app.app_context():
        db.create_all()
    return app


def seed(app, deployments: int, leases: int) -> list[int]:
    """``deployments`` ready deployments, the first ``leases`` of them with a running lease
    ending in a day; returns the lease ids."""
    from sqlalchemy import insert

    from app.auth.cli import create_local_user
    from app.clock import utcnow
    from app.deployments.models import Deployment
    from app.extensions import db
    from app.leases.editing import set_policy
    from app.leases.models import RUNNING, Lease

    with app.app_context():
        user = create_local_user("bench", "bench password 1")
        set_policy(None, None, None, {"default": 2880, "warn": [1440, 60]}, "bench")
        now = utcnow()
        rows = [
            {
                "user_id": user.id,
                "name": f"d{i}",
                "template_slug": f"t{i % 20}",
                "template_name": "Bench",
                "group_name": f"g{i % 10}",
                "parameters": {},
                "request_options": {},
                "outputs": {},
                "charge": {},
                "status": "CREATE_COMPLETE",
                "keeps_failed_attempt": False,
                "adopted": False,
                "check_failures": 0,
                "deleted": False,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(deployments)
        ]
        for start in range(0, deployments, 10_000):
            db.session.execute(insert(Deployment), rows[start : start + 10_000])
        ids = list(
            db.session.scalars(db.select(Deployment.id).order_by(Deployment.id).limit(leases))
        )
        ends = now + timedelta(hours=23)  # the 24 h warning is due
        db.session.execute(
            insert(Lease),
            [
                {
                    "deployment_id": i,
                    "state": RUNNING,
                    "minutes": 2880,
                    "started_at": now - timedelta(days=1),
                    "ends_at": ends,
                    "extends": 0,
                    "next_at": ends - timedelta(days=1),
                }
                for i in ids
            ],
        )
        db.session.commit()
        return ids


def timed_pass(app, lease_ids: list[int], due: int, rounds: int) -> tuple[float, float, int]:
    """Median wall and CPU ms (this process) of one pass with ``due`` leases due (made due
    again before each round): on a busy machine the second says what the pass itself costs."""
    from sqlalchemy import update

    from app.clock import utcnow
    from app.extensions import db
    from app.leases.expiry import expire_once
    from app.leases.models import Lease

    times, cpu, warned = [], [], 0
    with app.app_context():
        for _ in range(rounds):
            now = utcnow()
            db.session.execute(
                update(Lease).values(next_at=now + timedelta(hours=1), warned_before=None)
            )
            db.session.execute(
                update(Lease)
                .where(Lease.deployment_id.in_(lease_ids[:due]))
                .values(next_at=now - timedelta(seconds=1))
            )
            db.session.commit()
            started, started_cpu = time.perf_counter(), time.process_time()
            result = expire_once()
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
            warned = result.warned
        return statistics.median(times), statistics.median(cpu), warned


def _plan(app) -> str:
    from sqlalchemy import text

    from app.extensions import db

    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            return ""
        db.session.execute(text("ANALYZE"))
        plan = (
            db.session.execute(
                text(
                    "EXPLAIN SELECT * FROM leases WHERE next_at <= now() AT TIME ZONE 'UTC' "
                    "ORDER BY next_at LIMIT 200 FOR UPDATE SKIP LOCKED"
                )
            )
            .scalars()
            .all()
        )
        db.session.commit()
        return " / ".join(line.strip() for line in plan if "Scan" in line)


def run(name: str, url_for, tmp: Path, quick: bool) -> None:
    rounds = 3 if quick else 7
    for deployments, leases, dues in ((100_000, 10_000, (100, 1_000)), (10_000, 1_000, (100,))):
        if quick:
            deployments, leases = deployments // 10, leases // 10
        url, drop = url_for(f"{deployments}")
        try:
            app = _app(url, tmp / f"i{deployments}")
            ids = seed(app, deployments, leases)
            for due in dues:
                ms, cpu, warned = timed_pass(app, ids, due, rounds)
                print(
                    f"lease expiry pass, {name}, {deployments:,} deployments, {leases:,} leases, "
                    f"{due:,} due: {ms:.1f} ms wall, {cpu:.1f} ms CPU (medians of {rounds}; "
                    f"{warned} warned; target 200 ms for 100 due)"
                )
            plan = _plan(app)
            if plan:
                print(f"  plan of the claim: {plan}")
            with app.app_context():
                from app.extensions import db

                db.session.remove()
                db.engine.dispose()
        finally:
            drop()


def main(quick: bool = False) -> None:
    with tempfile.TemporaryDirectory(prefix="portal-bench-leases-") as tmp:
        tmp = Path(tmp)
        probe = _postgres_url(tmp)
        if probe:
            probe[1]()

            def url_for(_key):
                return _postgres_url(tmp)

            run("PostgreSQL", url_for, tmp, quick)
        else:
            print("lease expiry pass, PostgreSQL: no server on 127.0.0.1:5432; SQLite instead")
            run("SQLite", lambda key: (f"sqlite:///{tmp}/l{key}.sqlite", lambda: None), tmp, quick)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
