"""Several expiry workers (separate processes) on one database, with time moved for all of them
through one clock file: each warning, each end and each delete at expiry happens once, by
exactly one of them (row claims: FOR UPDATE SKIP LOCKED on PostgreSQL), and none is left,
however the processes happened to share the work."""

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select

from app.backends.paas.client import OrchestratorClient
from app.clock import OffsetFileClock, utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.leases.models import GRACE, RUNNING, Lease
from tests.conftest import TEST_CONFIG
from tests.deployments.conftest import PARAMETERS, SERVICE_TOKEN, TEMPLATE

WORKER = """
import json, sys, time
from pathlib import Path
from app import create_app
from app.leases.expiry import expire_once

config, instance, folder, name = json.loads(sys.argv[1]), *sys.argv[2:5]
folder = Path(folder)
app = create_app(config, instance_path=instance)
totals = {}
with app.app_context():
    for phase in ("warn", "end", "delete"):
        (folder / f"ready-{phase}-{name}").touch()
        while not (folder / f"go-{phase}").exists():
            time.sleep(0.01)
        result = expire_once()
        for key in ("warned", "expired", "deleted", "delete_failed"):
            totals[key] = totals.get(key, 0) + getattr(result, key)
        (folder / f"done-{phase}-{name}").touch()
print(json.dumps(totals))
"""
COUNT = 60
WORKERS = 3


def seed(emulated, leases, user_id: int) -> list[str]:
    """COUNT ready deployments whose leases end in 90 minutes (warning 1 h before, no grace)."""
    leases.policy(default="2h", warn="1h", grace="0m")
    with OrchestratorClient(emulated.emulator.url, lambda: SERVICE_TOKEN, (2, 10)) as client:
        uuids = [
            client.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")["uuid"]
            for _ in range(COUNT)
        ]
    for uuid in uuids:
        emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    with emulated.app.app_context():
        now = utcnow()
        rows = [
            Deployment(
                uuid=uuid,
                user_id=user_id,
                name=f"n{i}",
                template_slug="test-notebook",
                template_name="Test notebook",
                group_name="physics",
                parameters={},
                outputs={},
                charge={},
                request_options={},
                status="ready",
                check_failures=0,
            )
            for i, uuid in enumerate(uuids)
        ]
        db.session.add_all(rows)
        db.session.flush()
        db.session.add_all(
            Lease(
                deployment_id=row.id,
                state=RUNNING,
                minutes=120,
                started_at=now - timedelta(minutes=30),
                ends_at=now + timedelta(minutes=90),
                next_at=now + timedelta(minutes=30),
                extends=0,
            )
            for row in rows
        )
        db.session.commit()
    return uuids


def _wait_for(tmp_path, prefix: str, workers) -> None:
    deadline = time.monotonic() + 90
    while not all((tmp_path / f"{prefix}-{n}").exists() for n in range(WORKERS)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers), [
            w.communicate() for w in workers if w.poll() is not None
        ]
        time.sleep(0.02)


def test_several_worker_processes_warn_end_and_delete_each_lease_once(emulated, leases, tmp_path):
    ada = emulated.user("ada")
    uuids = seed(emulated, leases, ada)
    emulated.emulator.set_faults(latency=0.02, paths=["DELETE /deployments/*"])
    emulated.emulator.clear_requests()
    shared_clock = OffsetFileClock(tmp_path / "clock-offset")
    config = {
        **TEST_CONFIG,
        "SQLALCHEMY_DATABASE_URI": emulated.app.config["SQLALCHEMY_DATABASE_URI"],
        "ORCHESTRATOR_URL": emulated.emulator.url,
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": SERVICE_TOKEN},
        "CLOCK_OFFSET_FILE": str(shared_clock.path),
        "LEASES_BATCH": 4,
    }
    root = Path(__file__).resolve().parents[2]
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                json.dumps(config),
                str(tmp_path / f"i{n}"),
                str(tmp_path),
                str(n),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    # Each phase: time moves for every worker at once, then all go together.
    for phase, moved in (("warn", 31), ("end", 91), ("delete", 92)):
        _wait_for(tmp_path, f"ready-{phase}", workers)
        shared_clock.set_offset(timedelta(minutes=moved))
        (tmp_path / f"go-{phase}").touch()
        _wait_for(tmp_path, f"done-{phase}", workers)
    outcomes = [w.communicate(timeout=120) for w in workers]

    assert all(w.returncode == 0 for w in workers), outcomes
    totals = [json.loads(out.strip().splitlines()[-1]) for out, _err in outcomes]
    assert sum(t["warned"] for t in totals) == COUNT
    assert sum(t["expired"] for t in totals) == COUNT
    assert sum(t["deleted"] for t in totals) == COUNT
    assert sum(t["delete_failed"] for t in totals) == 0
    # How the processes shared the work is the machine's business (on a loaded one, one may
    # take it all): what matters is that each step happened once and none was left.
    deletes = Counter(
        r["path"].rsplit("/", 1)[1] for r in emulated.emulator.requests() if r["method"] == "DELETE"
    )
    assert sorted(deletes) == sorted(uuids) and set(deletes.values()) == {1}
    with emulated.app.app_context():
        kinds = Counter(
            (deployment_id, kind)
            for deployment_id, kind in db.session.execute(
                select(DeploymentEvent.deployment_id, DeploymentEvent.kind).where(
                    DeploymentEvent.kind.is_not(None)
                )
            )
        )
        assert len(kinds) == 3 * COUNT and set(kinds.values()) == {1}
        assert (
            db.session.scalar(select(func.count()).where(Deployment.status == "deleting")) == COUNT
        )
        # None is left waiting for its warning, its end or its delete.
        states = Counter(db.session.scalars(select(Lease.state)))
        assert sum(states.values()) == COUNT and not set(states) & {RUNNING, GRACE}, states
