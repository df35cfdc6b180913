"""Several mail workers in several processes on one database send each mail exactly once
(``app.claims``: FOR UPDATE SKIP LOCKED on PostgreSQL, the write lock on SQLite)."""

from collections import Counter

from app.extensions import db
from app.notifications.models import MAIL_SENT, Notification
from tests.conftest import TEST_CONFIG
from tests.notifications.conftest import Portal
from tests.processes import race

MAILS = 60
WORKERS = 3


def _worker(config, instance, barrier, queue):
    from app import create_app
    from app.notifications.models import MAIL_QUEUED, Notification
    from app.notifications.sending import send_once

    app = create_app(config, instance_path=instance)
    with app.app_context():
        barrier.wait()
        sent = 0
        # Until nothing is left queued: a pass may find every due row claimed by the others.
        while True:
            sent += send_once().sent
            left = db.session.scalar(
                db.select(db.func.count())
                .select_from(Notification)
                .where(Notification.mail_status == MAIL_QUEUED)
            )
            db.session.rollback()
            if not left:
                break
        db.session.remove()
        db.engine.dispose()
    queue.put(sent)


def test_several_worker_processes_send_each_mail_exactly_once(
    make_app, database_url, smtp_server, tmp_path
):
    settings = {**smtp_server.settings(), "NOTIFICATIONS_SEND_BATCH": 20}
    portal = Portal(make_app(SQLALCHEMY_DATABASE_URI=database_url, **settings))
    ada = portal.user()
    for number in range(MAILS):
        deployment = portal.deployment(ada, name=f"Run {number}")
        portal.record(deployment, "failed", source="sync", reason="boom")
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url, **settings}
    with portal.app.app_context():
        db.engine.dispose()  # no pooled connection crosses the fork
    counts = race(
        _worker,
        [(config, str(tmp_path / f"instance-{n}")) for n in range(WORKERS)],
        parties=WORKERS,
        outcomes=WORKERS,
    )
    assert sum(counts) == MAILS
    messages = smtp_server.wait_for(MAILS)
    subjects = Counter(m["Subject"] for m in messages)
    assert len(messages) == MAILS
    assert set(subjects.values()) == {1}
    with portal.app.app_context():
        statuses = Counter(db.session.scalars(db.select(Notification.mail_status)))
    assert statuses == {MAIL_SENT: MAILS}
