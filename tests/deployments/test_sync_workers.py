"""Two sync worker processes on one database: each deployment in progress is asked about once,
by one of them (row claims: SKIP LOCKED on PostgreSQL), however they happen to share the work."""

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from app.backends.paas.client import OrchestratorClient
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentListing
from app.extensions import db
from tests.conftest import TEST_CONFIG
from tests.deployments.conftest import PARAMETERS, SERVICE_TOKEN, TEMPLATE

WORKER = """
import json, sys, time
from pathlib import Path

import pytest
from app import create_app
from app.sync.passes import sync_once

config, instance, folder, name = json.loads(sys.argv[1]), *sys.argv[2:5]
folder = Path(folder)
app = create_app(config, instance_path=instance)
with app.app_context():
    (folder / f"ready-{name}").touch()
    while not (folder / "go").exists():
        time.sleep(0.01)
    print(json.dumps(sync_once().polled.checked))
"""
COUNT = 200


def seed(emulated, user_id: int) -> list[str]:
    """COUNT deployments in progress at the emulator and in the portal, all due for a check."""
    with OrchestratorClient(emulated.emulator.url, lambda: SERVICE_TOKEN, (2, 10)) as client:
        uuids = [
            client.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")["uuid"]
            for _ in range(COUNT)
        ]
    with emulated.app.app_context():
        now = utcnow()
        db.session.add_all(
            Deployment(
                uuid=uuid,
                user_id=user_id,
                name=f"n{i}",
                template_slug="test-notebook",
                template_name="Test notebook",
                parameters={},
                outputs={},
                charge={},
                request_options={},
                status="creating",
                next_check_at=now,
                submitted_at=now - timedelta(minutes=1),
                check_failures=0,
            )
            for i, uuid in enumerate(uuids)
        )
        # Listing is another test's subject: here only polling runs.
        db.session.add(
            DeploymentListing(identity="service", failures=0, next_at=now + timedelta(hours=1))
        )
        db.session.commit()
    return uuids


@pytest.mark.parametrize("batch", [10, 200], ids=["small batches", "one batch holds every row"])
def test_two_worker_processes_share_the_rows_and_never_poll_one_twice(emulated, tmp_path, batch):
    ada = emulated.user("ada")
    uuids = seed(emulated, ada)
    emulated.emulator.set_faults(latency=0.05, paths=["GET /deployments/*"])
    emulated.emulator.clear_requests()
    config = {
        **TEST_CONFIG,
        "SQLALCHEMY_DATABASE_URI": emulated.app.config["SQLALCHEMY_DATABASE_URI"],
        "ORCHESTRATOR_URL": emulated.emulator.url,
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": SERVICE_TOKEN},
        # Even when one claim could take every due row, each worker claims only what it asks
        # about at once, so the other finds work.
        "DEPLOYMENTS_SYNC_BATCH": batch,
        "DEPLOYMENTS_SYNC_CONCURRENCY": 4,
        "DEPLOYMENTS_SYNC_INTERVAL_SECONDS": 3600,
    }
    root = Path(__file__).resolve().parents[2]
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                json.dumps(config),
                str(tmp_path / f"instance-{n}"),
                str(tmp_path),
                str(n),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in (1, 2)
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{n}").exists() for n in (1, 2)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers), [
            w.communicate() for w in workers if w.poll() is not None
        ]
        time.sleep(0.02)
    (tmp_path / "go").touch()
    outcomes = [w.communicate(timeout=120) for w in workers]

    assert all(w.returncode == 0 for w in workers), outcomes
    checked = [json.loads(out.strip().splitlines()[-1]) for out, _err in outcomes]
    asked = Counter(
        r["path"].rsplit("/", 1)[1]
        for r in emulated.emulator.requests()
        if r["method"] == "GET" and r["path"].count("/") == 2
    )
    assert sorted(asked) == sorted(uuids) and set(asked.values()) == {1}
    assert sum(checked) == COUNT
    # How the two shared the work is the machine's business (on a loaded one, one may take it
    # all): what matters is that each was asked about once and none was left claimed.
    with emulated.app.app_context():
        assert (
            db.session.scalar(
                db.select(db.func.count()).where(Deployment.claimed_until.is_not(None))
            )
            == 0
        )
