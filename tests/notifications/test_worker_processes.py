"""Two worker processes (``app.worker``, each duty in its own thread) on one PostgreSQL database,
as two hosts: every due row is handled once, by one of them, whichever takes it
(``app.claims``: SKIP LOCKED), and each stops cleanly on SIGTERM."""

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.leases.models import DONE, GRACE, Lease
from app.notifications.models import MAIL_NONE, MAIL_QUEUED, MAIL_SENT, Notification
from tests.conftest import TEST_CONFIG
from tests.notifications.conftest import Portal

MAILS = 40
LEASES = 40

RUNNER = """
import json, sys
from app import create_app
from app.worker import chosen, run_duties

config, instance = json.loads(sys.argv[1]), sys.argv[2]
app = create_app(config, instance_path=instance)
with app.app_context():
    print("started", flush=True)
    run_duties(chosen(("mail", "leases")))
"""


def _seed(portal: Portal, ada: int) -> list[int]:
    """MAILS mails due, and LEASES leases whose grace is over (each deletes a deployment that
    never reached a backend: no backend is asked)."""
    for number in range(MAILS):
        deployment = portal.deployment(ada, name=f"Run {number}")
        portal.record(deployment, "failed", source="sync", reason="boom")
    ended = []
    for number in range(LEASES):
        ended.append(portal.deployment(ada, name=f"Lease {number}", status="ready"))
    with portal.app.app_context():
        past = utcnow() - timedelta(minutes=1)
        db.session.add_all(
            Lease(deployment_id=one, state=GRACE, ends_at=past, delete_at=past, next_at=past)
            for one in ended
        )
        db.session.commit()
    return ended


def _left(app) -> tuple[int, int]:
    with app.app_context():
        mails = db.session.scalar(
            db.select(db.func.count())
            .select_from(Notification)
            .where(Notification.mail_status == MAIL_QUEUED)
        )
        leases = db.session.scalar(
            db.select(db.func.count()).select_from(Lease).where(Lease.state != DONE)
        )
        db.session.rollback()
        return mails, leases


def test_two_worker_processes_handle_each_due_row_once_and_stop_on_sigterm(
    make_app, database, database_url, smtp_server, tmp_path
):
    if database != "postgresql":
        # SQLite is one file on one host: its writers queue on one lock, each for at most its
        # busy timeout, which four busy threads on a loaded machine may exceed. Hosts share
        # PostgreSQL; tests/notifications/test_workers.py races the mail claims on both.
        pytest.skip("several hosts share PostgreSQL; the SQLite run would only wait on its lock")
    settings = {
        **smtp_server.settings(),
        "NOTIFICATIONS_SEND_BATCH": 5,
        "LEASES_BATCH": 5,
        "NOTIFICATIONS_SEND_TICK_SECONDS": 0.05,
        "DEPLOYMENTS_SYNC_TICK_SECONDS": 0.05,
    }
    portal = Portal(make_app(SQLALCHEMY_DATABASE_URI=database_url, **settings))
    ada = portal.user()
    ended = _seed(portal, ada)
    with portal.app.app_context():
        db.engine.dispose()  # no pooled connection is shared with the workers
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url, **settings}
    root = Path(__file__).resolve().parents[2]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", RUNNER, json.dumps(config), str(tmp_path / f"instance-{n}")],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in (1, 2)
    ]
    try:
        for worker in workers:
            assert worker.stdout.readline().strip() == "started", worker.communicate()
        deadline = time.monotonic() + 120
        while _left(portal.app) != (0, 0):
            assert all(worker.poll() is None for worker in workers)
            if time.monotonic() > deadline:
                for worker in workers:
                    worker.send_signal(signal.SIGTERM)
                said = [worker.communicate(timeout=60) for worker in workers]
                raise AssertionError(f"left {_left(portal.app)}: {said}")
            time.sleep(0.05)  # the condition is looked at again, not waited for blindly
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        outcomes = [worker.communicate(timeout=60) for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0], outcomes
    with portal.app.app_context():
        statuses = Counter(db.session.scalars(db.select(Notification.mail_status)))
        deleted = Counter(
            db.session.scalars(
                db.select(DeploymentEvent.deployment_id).where(
                    DeploymentEvent.kind == "lease-deleted"
                )
            )
        )
        gone = set(db.session.scalars(db.select(Deployment.id).where(Deployment.deleted.is_(True))))
    # Every mail was sent once (the deletes at expiry are told in the portal alone).
    assert statuses == {MAIL_SENT: MAILS, MAIL_NONE: LEASES}
    messages = smtp_server.wait_for(MAILS)
    assert len(messages) == MAILS
    assert set(Counter(m["Subject"] for m in messages).values()) == {1}
    # Each lease was deleted once: one "deleted at expiry" entry per deployment.
    assert deleted == Counter(ended) and gone == set(ended)
