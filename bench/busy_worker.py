"""Admission from the line while the worker is busy elsewhere.

One worker host (``flask deployments sync --loop``, the command production runs) on a SQLite
portal, with 200 leases of IM deployments ended and their deletes in flight at an IM that
answers each delete in 2 s (emulated here: deletes are serialised per IM server, so they take
200 x 2 s and more), and a capacity source that never answers (its deadline: 60 s). The
group's pool of one deployment is full: one person's request waits in line behind another's
deployment, whose lease ended; at T its delete is reported done (as the orchestrator's
callback or another host records it). Printed: seconds from T until the waiting request is
submitted, against the admission interval (DEPLOYMENTS_SYNC_TICK_SECONDS, 5 s by default);
the target is under two intervals.

``python -m bench.busy_worker [--quick]`` (quick: 50 deletes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DELETES, IM_ANSWER_SECONDS, SOURCE_DEADLINE = 200, 2.0, 60
GIVE_UP = 900  # seconds: what the worker takes beyond this is reported as "more than"
ROOT = Path(__file__).resolve().parents[1]


class _Im(BaseHTTPRequestHandler):
    """An IM whose deletes take IM_ANSWER_SECONDS; afterwards it knows no infrastructure."""

    deletes = 0

    def do_DELETE(self):  # noqa: N802 - the http.server spelling
        type(self).deletes += 1
        time.sleep(IM_ANSWER_SECONDS)
        self._answer(200, b"")

    def do_GET(self):  # noqa: N802
        self._answer(404, b'{"message": "Invalid infrastructure ID or access not granted."}')

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class _Hang(BaseHTTPRequestHandler):
    """A capacity source that takes the request and never answers."""

    asked = threading.Event()
    released = threading.Event()

    def do_GET(self):  # noqa: N802
        type(self).asked.set()
        type(self).released.wait()

    def log_message(self, *args):
        pass


def _serve(handler) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def portal_from_env():
    """The portal the worker runs (``flask --app 'bench.busy_worker:portal_from_env()'``)."""
    from app import create_app

    return create_app(json.loads(os.environ["BENCH_CONFIG"]), os.environ["BENCH_INSTANCE"])


def _seed(app, deletes: int) -> tuple[int, int]:
    """The ended leases of ``deletes`` IM deployments, the pool's holder (its delete under way)
    and a request waiting for the pool; returns the holder's and the waiting request's ids."""
    from datetime import timedelta

    from app.auth.cli import create_local_user
    from app.catalogue.loader import catalogue
    from app.clock import utcnow
    from app.deployments.models import Deployment
    from app.deployments.status import Status
    from app.deployments.timeline import change_status
    from app.extensions import db
    from app.launch.workflow import launch
    from app.leases.models import GRACE, Lease
    from app.lines import operations
    from app.quotas.editing import parse_limit, set_limits
    from tests.deployments.conftest import PARAMETERS, save_and_publish

    with app.app_context():
        db.create_all()
        save_and_publish(app)
        people = {}
        for name, group in (("ada", "physics"), ("bob", "physics"), ("carol", "chemistry")):
            person = create_local_user(name, "correct horse battery")
            person.groups = [group]
            people[name] = person
        db.session.commit()
        set_limits(None, "group", "physics", {"deployments": parse_limit("deployments", "1")}, "b")
        entry = catalogue().get("test-notebook")
        holder = launch(people["ada"], entry, dict(PARAMETERS), group="physics")
        # Its delete asked at the end of its lease, at IM too: the worker leaves it alone (its
        # checks are not due; IM's listing fails), so only the report at T frees the pool.
        change_status(
            holder, Status.DELETING, source="portal", reason="Deleted: the lease expired."
        )
        holder.backend, holder.uuid, holder.next_check_at = "im", "inf-holder", None
        db.session.commit()
        waiting = operations.wait_or_launch(people["bob"], entry, dict(PARAMETERS), group="physics")
        assert waiting.status == Status.WAITING, waiting.status
        past = utcnow() - timedelta(minutes=1)
        rows = [
            Deployment(
                uuid=f"inf-{number}",
                backend="im",
                user_id=people["carol"].id,
                name=f"IM {number}",
                template_slug="test-notebook",
                template_name="Test notebook",
                parameters={},
                outputs={},
                charge={},
                request_options={},
                group_name="chemistry",
                status="ready",
                check_failures=0,
                submitted_at=past,
            )
            for number in range(deletes)
        ]
        db.session.add_all(rows)
        db.session.flush()
        db.session.add_all(
            Lease(deployment_id=row.id, state=GRACE, ends_at=past, delete_at=past, next_at=past)
            for row in rows
        )
        db.session.commit()
        return holder.id, waiting.id


def _release(app, holder_id: int) -> None:
    """The holder's delete is reported done."""
    from app.deployments import tracking
    from app.deployments.models import Deployment
    from app.extensions import db

    with app.app_context():
        tracking.mark_gone(db.session.get(Deployment, holder_id), source="callback")
        db.session.commit()


def _submitted(app, deployment_id: int) -> bool:
    from app.deployments.models import Deployment
    from app.deployments.status import Status
    from app.extensions import db

    with app.app_context():
        row = db.session.get(Deployment, deployment_id)
        done = row.status != Status.WAITING
        db.session.rollback()
        return done


def main(quick: bool = False) -> None:
    from app import create_app
    from bench.catalogue import CONFIG

    deletes = 50 if quick else DELETES
    im, hang = _serve(_Im), _serve(_Hang)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = {
            **CONFIG,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/portal.sqlite",
            "ORCHESTRATOR_URL": "demo",
            "IM_URL": f"http://127.0.0.1:{im.server_port}",
            "IM_CLOUDS": "id = dummy; type = Dummy",
            "IM_USERNAME": "bench",
            "IM_PASSWORD": "bench",
            "IM_TIMEOUT": [2, 30],
            "CAPACITY_SOURCES": [
                {
                    "kind": "cluster-stats",
                    "url": f"http://127.0.0.1:{hang.server_port}/papi/RECAS-BARI",
                    "site": "RECAS-BARI",
                    "timeout": SOURCE_DEADLINE,
                }
            ],
            "LAUNCHES_PER_MINUTE": 0,
        }
        instance = str(folder / "instance")
        app = create_app(config, instance_path=instance)
        holder, waiting = _seed(app, deletes)
        interval = app.config["DEPLOYMENTS_SYNC_TICK_SECONDS"]
        env = {
            **os.environ,
            "BENCH_CONFIG": json.dumps(config),
            "BENCH_INSTANCE": instance,
            "PYTHONPATH": str(ROOT),
        }
        worker = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "flask"),
                "--app",
                "bench.busy_worker:portal_from_env()",
                "deployments",
                "sync",
                "--loop",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # Busy: the deletes under way at IM (the capacity source hangs whenever it is read).
            while _Im.deletes < 1:
                assert worker.poll() is None, "the worker ended"
                time.sleep(0.05)
            hanging = _Hang.asked.wait(2 * interval)
            assert not _submitted(app, waiting)
            _release(app, holder)
            freed = time.monotonic()
            while not _submitted(app, waiting) and time.monotonic() - freed < GIVE_UP:
                time.sleep(0.05)
            took = time.monotonic() - freed
            in_flight = _Im.deletes
        finally:
            worker.terminate()
            _Hang.released.set()
            worker.wait(60)
            im.shutdown()
            hang.shutdown()
        more = "more than " if took >= GIVE_UP else ""
        print(
            f"busy worker: {more}{took:.1f} s from a freed pool to the waiting request submitted "
            f"({deletes} IM deletes of {IM_ANSWER_SECONDS:.0f} s in flight, {in_flight} asked "
            f"by then; the capacity source hanging {'at T' if hanging else 'once read'}"
            f"; admission interval {interval:g} s, target under {2 * interval:g} s)"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
