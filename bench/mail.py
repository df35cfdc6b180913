"""How fast the mail worker empties a queue of 1,000 notification mails into a local SMTP
server (aiosmtpd on loopback, in a process of its own as a real server would be): mails per
second, on SQLite and on PostgreSQL when one answers.

Each mail is composed (plain text and HTML from the templates), claimed, sent over the pass's
one SMTP connection and recorded as sent (one commit per mail, so that a worker that dies
resends at most one), exactly as `flask notifications send --loop` does.
"""

import multiprocessing
import secrets
import tempfile
import time
from contextlib import closing
from pathlib import Path

from tests.fixtures.smtp import SmtpServer

PG_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"


def make_app(folder: Path, url: str, smtp: SmtpServer):
    from app import create_app
    from app.extensions import db

    app = create_app(
        {
            "SECRET_KEY": "bench-" + "x" * 40,
            "SQLALCHEMY_DATABASE_URI": url,
            "ORCHESTRATOR_URL": "demo",
            **smtp.settings(),
        },
        instance_path=str(folder / "instance"),
    )
    with app.app_context():
        db.create_all()
    return app


def seed(app, count: int) -> None:
    """``count`` failed deployments whose owner wants failures by mail: ``count`` queued mails,
    written by the same listener that writes them in production."""
    from app.auth.cli import create_local_user
    from app.deployments.models import Deployment
    from app.deployments.timeline import record_event
    from app.extensions import db

    with app.app_context():
        user = create_local_user("bench", "correct horse battery", email="bench@example.org")
        db.session.commit()
        for number in range(count):
            deployment = Deployment(
                user_id=user.id,
                name=f"Bench run {number}",
                template_slug="vm",
                template_name="Virtual machine",
                parameters={},
                outputs={},
                charge={},
                request_options={},
                status="CREATE_IN_PROGRESS",
            )
            db.session.add(deployment)
            record_event(deployment, "CREATE_FAILED", source="sync", reason="No matching flavor")
        db.session.commit()


def drain(app) -> tuple[int, float, float]:
    """Run passes until the queue is empty; returns (mails sent, wall seconds, the worker's
    CPU seconds). On a shared machine the CPU time is the steadier figure."""
    from app.notifications.sending import send_once

    sent = 0
    with app.app_context():
        started, cpu = time.perf_counter(), time.process_time()
        while True:
            result = send_once()
            if not (result.sent or result.retrying):
                break
            sent += result.sent
        return sent, time.perf_counter() - started, time.process_time() - cpu


def _backends(folder: Path):
    yield "SQLite", f"sqlite:///{folder}/mail.sqlite"
    try:
        import psycopg

        name = "portal_bench_" + secrets.token_hex(4)
        with closing(psycopg.connect(PG_SERVER, autocommit=True, connect_timeout=2)) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception:  # noqa: BLE001 - no PostgreSQL here: the SQLite figure alone
        return
    try:
        yield "PostgreSQL", f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with closing(psycopg.connect(PG_SERVER, autocommit=True)) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _serve(smtp: SmtpServer, ready, stop, arrived) -> None:
    """The SMTP server's own process: serve until ``stop``, counting what arrives."""
    smtp.controller.start()
    ready.set()
    stop.wait(600)
    arrived.value = len(smtp.messages)
    smtp.controller.stop()


def main(quick: bool = False) -> None:
    count = 200 if quick else 1000
    print("\n== Notification mail ==")
    context = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory() as tmp:
        for label, url in _backends(Path(tmp)):
            smtp = SmtpServer()
            ready, stop, arrived = context.Event(), context.Event(), context.Value("i", 0)
            server = context.Process(target=_serve, args=(smtp, ready, stop, arrived))
            server.start()
            try:
                ready.wait(30)
                app = make_app(Path(tmp) / label, url, smtp)
                seed(app, count)
                sent, seconds, cpu = drain(app)
                with app.app_context():
                    from app.extensions import db

                    db.engine.dispose()
            finally:
                stop.set()
                server.join(30)
            arrived = arrived.value
            print(
                f"{label:10} {sent:,} queued mails sent ({arrived:,} arrived) in {seconds:.2f} s: "
                f"{sent / seconds:,.0f} mails/s; the worker's CPU {cpu * 1000 / sent:.1f} ms a mail"
                f" ({sent / cpu:,.0f} mails per CPU second)"
            )


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
