"""Leases of IM deployments end through the same delete as a person's: two expiry workers
(separate processes) on one database delete each IM infrastructure exactly once, and IM keeps
none."""

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.leases.models import GRACE, Lease
from tests.api.conftest import Callers
from tests.backends.im.conftest import at_im, sync_until
from tests.conftest import TEST_CONFIG

WORKER = """
import json, sys, time
from pathlib import Path
from app import create_app
from app.leases.expiry import expire_once

config, instance, folder, name = json.loads(sys.argv[1]), *sys.argv[2:5]
folder = Path(folder)
app = create_app(config, instance_path=instance)
with app.app_context():
    (folder / f"ready-{name}").touch()
    while not (folder / "go").exists():
        time.sleep(0.01)
    result = expire_once()
print(json.dumps({"deleted": result.deleted, "delete_failed": result.delete_failed}))
"""
COUNT = 4
WORKERS = 2


def test_two_expiry_workers_delete_each_expired_im_deployment_once(
    portal, im_server, im_identity, tmp_path
):
    ada = Callers(portal)("ada")
    ids = [
        ada.launch(name=f"leased-{n}", template="one-machine", parameters={}).get_json()["id"]
        for n in range(COUNT)
    ]
    for deployment_id in ids:
        assert sync_until(portal, deployment_id, lambda r: r.status != "creating").status == (
            "ready"
        )
    with portal.app_context():
        now = utcnow()
        db.session.add_all(
            Lease(
                deployment_id=deployment_id,
                state=GRACE,
                minutes=60,
                started_at=now - timedelta(hours=2),
                ends_at=now - timedelta(hours=1),
                delete_at=now - timedelta(minutes=1),
                next_at=now - timedelta(minutes=1),
                extends=0,
            )
            for deployment_id in ids
        )
        db.session.commit()
    config = {
        **TEST_CONFIG,
        **{
            key: portal.config[key]
            for key in (
                "SQLALCHEMY_DATABASE_URI",
                "ORCHESTRATOR_URL",
                "IM_URL",
                "IM_CLOUDS",
                "IM_USERNAME",
                "IM_PASSWORD",
                "IM_TIMEOUT",
            )
        },
        "LEASES_BATCH": 1,
    }
    root = Path(__file__).resolve().parents[3]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, json.dumps(config), portal.instance_path]
            + [str(tmp_path), str(n)],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    deadline = time.monotonic() + 90
    while not all((tmp_path / f"ready-{n}").exists() for n in range(WORKERS)):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers)
        time.sleep(0.02)
    (tmp_path / "go").touch()
    outcomes = [w.communicate(timeout=120) for w in workers]

    assert all(w.returncode == 0 for w in workers), outcomes
    totals = [json.loads(out.strip().splitlines()[-1]) for out, _err in outcomes]
    assert sum(t["deleted"] for t in totals) == COUNT
    assert sum(t["delete_failed"] for t in totals) == 0
    with portal.app_context():
        deletes = Counter(
            db.session.scalars(
                select(DeploymentEvent.deployment_id).where(DeploymentEvent.kind == "lease-deleted")
            )
        )
        assert deletes == dict.fromkeys(ids, 1)
        statuses = set(db.session.scalars(select(Deployment.status)))
        assert statuses <= {"deleting", "deleted"}, statuses
    with at_im(im_server, im_identity) as im:
        assert im.client.list_ids() == []
