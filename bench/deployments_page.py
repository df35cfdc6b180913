"""How fast My deployments serves a busy researcher, and that nothing waits on the orchestrator.

A database of 100,000 deployments (1,000 of them the measured user's) is written in bulk, the
portal is served by gunicorn (2 workers) on loopback, and a few concurrent clients fetch pages
for a fixed time. Figures printed:
- My deployments: p50/p95 latency, requests per second, and page size, each against a trivial
  page of the same app (the health check) measured in the same run;
- the same while the orchestrator (the emulator, as a real server) answers in 2 s, and while it
  hangs;
- the catalogue page alone, then while several clients keep polling the list's rows partial.

``python -m bench.deployments_page [--quick]``
"""

from __future__ import annotations

import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
TOTAL, MINE, OTHERS = 100_000, 1_000, 199
PASSWORD = "bench password 1"
STATUSES = ["CREATE_COMPLETE"] * 8 + ["CREATE_FAILED", "CREATE_IN_PROGRESS"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _settings(database: str, orchestrator: str) -> dict[str, str]:
    return {
        "PORTAL_SECRET_KEY": "bench-" + "x" * 40,
        "PORTAL_SQLALCHEMY_DATABASE_URI": database,
        "PORTAL_ORCHESTRATOR_URL": orchestrator,
        "PORTAL_SESSION_COOKIE_SECURE": "false",
        "PORTAL_LOGIN_MAX_FAILURES_PER_ADDRESS": "1000",
        "PORTAL_CATALOGUE_RELOAD_SECONDS": "3600",
    }


def build_database(folder: Path) -> tuple[str, str]:
    """Write the database; returns its URL and the measured user's username."""
    from app import create_app
    from app.auth.cli import create_local_user
    from app.auth.models import User
    from app.catalogue.operations import import_folder
    from app.deployments.models import Deployment
    from app.extensions import db

    url = f"sqlite:///{folder}/bench.sqlite"
    config = {
        "SECRET_KEY": "bench-" + "x" * 40,
        "SQLALCHEMY_DATABASE_URI": url,
        "ORCHESTRATOR_URL": "demo",
    }
    app = create_app(config, instance_path=str(folder / "instance"))
    with app.app_context():
        db.create_all()
        import_folder(ROOT / "tosca-catalog", author="bench")
        from app.catalogue.models import CatalogueTemplate

        revision = db.session.scalar(
            db.select(CatalogueTemplate.published_revision_id).where(
                CatalogueTemplate.slug == "jupyter-vm"
            )
        )
        owner = create_local_user("bench-ada", PASSWORD, "Ada Bench")
        # The others never log in: no password to hash.
        others = [
            User(
                provider="local",
                subject=f"bench-{n:03d}",
                username=f"bench-{n:03d}",
                groups=[],
                group_roles=[],
            )
            for n in range(OTHERS)
        ]
        db.session.add_all(others)
        db.session.commit()
        user_ids = [u.id for u in others]
        rows = _rows(owner.id, user_ids, revision)
        table = Deployment.__table__
        for start in range(0, len(rows), 5_000):
            db.session.execute(table.insert(), rows[start : start + 5_000])
        db.session.commit()
        username = owner.username
        db.session.remove()
        db.engine.dispose()
    return url, username


def _rows(owner_id: int, user_ids: list[int], revision_id: int | None) -> list[dict]:
    rng = random.Random(6)
    now = datetime.now(UTC).replace(tzinfo=None)
    mine = set(rng.sample(range(TOTAL), MINE))
    rows = []
    for n in range(TOTAL):
        status = rng.choice(STATUSES)
        ready = status == "CREATE_COMPLETE"
        created = now - timedelta(minutes=TOTAL - n)
        rows.append(
            {
                "uuid": f"{n:08x}-{rng.getrandbits(16):04x}-4000-8000-{rng.getrandbits(48):012x}",
                "user_id": owner_id if n in mine else rng.choice(user_ids),
                "name": f"Notebook {n}",
                "template_slug": "jupyter-vm",
                "revision_id": revision_id,
                "template_name": "Jupyter on a virtual machine",
                "template_text": None,
                "parameters": {"num_cpus": 2, "mem_size": "8 GB"},
                "secrets_sealed": None,
                "group_name": "physics",
                "request_options": {},
                "charge": {"cores": 2, "memory": 8 * 10**9, "disk": 50 * 10**9, "gpus": 0},
                "status": status,
                "status_reason": None if status != "CREATE_FAILED" else "No quota",
                "backend_data": {},
                "site": "CLOUD-SITE-A",
                "region": "region-1",
                "deployment_type": "OPENSTACK",
                "outputs": {
                    "jupyter_endpoint": f"https://nb{n}.example.org/",
                    "node_ip": f"10.0.{n // 250 % 250}.{n % 250}",
                }
                if ready
                else {},
                "secret_outputs_sealed": None,
                "reference_secret": secrets.token_hex(16),
                "adopted": False,
                "created_at": created,
                "submitted_at": created,
                "updated_at": created,
                "checked_at": None,
                "next_check_at": None,
                "check_failures": 0,
                "deleted": False,
                "deleted_at": None,
            }
        )
    return rows


class Server:
    """gunicorn serving the portal with ``settings``, 2 sync workers, on a free port."""

    def __init__(self, settings: dict[str, str], folder: Path):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            "2",
            "--log-level",
            "warning",
            "wsgi:app",
        ]
        env = {**os.environ, **settings, "PORTAL_INSTANCE_PATH": str(folder / "instance")}
        self.log = open(folder / f"gunicorn-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/healthz", timeout=10).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not start; see {self.log.name}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def logged_in(url: str, username: str, password: str = PASSWORD) -> requests.Session:
    session = requests.Session()
    page = session.get(url + "/login", timeout=10).text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    form = {"csrf_token": token, "username": username, "password": password, "method": "local"}
    answer = session.post(url + "/login", data=form, timeout=10, allow_redirects=False)
    assert answer.status_code == 302, answer.status_code
    return session


def measure(
    session: requests.Session, url: str, seconds: float, clients: int = 3, data: dict | None = None
) -> dict:
    """Fetch ``url`` (POST ``data`` when given) from ``clients`` threads for ``seconds``;
    latency figures and throughput."""
    times: list[float] = []
    sizes: list[int] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client():
        own = requests.Session()
        own.cookies.update(session.cookies)
        mine, size = [], 0
        while time.monotonic() < stop:
            start = time.perf_counter()
            if data is None:
                answer = own.get(url, timeout=30)
            else:
                answer = own.post(url, data=data, timeout=30)
            mine.append(time.perf_counter() - start)
            assert answer.status_code == 200, (url, answer.status_code)
            size = len(answer.content)
        with lock:
            times.extend(mine)
            sizes.append(size)

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    times.sort()
    return {
        "p50": statistics.median(times) * 1000,
        "p95": times[int(len(times) * 0.95) - 1] * 1000,
        "rps": len(times) / elapsed,
        "bytes": max(sizes),
        "count": len(times),
    }


def pollers(session: requests.Session, url: str, count: int):
    """Start ``count`` threads fetching ``url`` back to back; returns a function stopping them."""
    running = threading.Event()
    running.set()
    done = [0]

    def poll():
        own = requests.Session()
        own.cookies.update(session.cookies)
        while running.is_set():
            own.get(url, timeout=60)
            done[0] += 1

    threads = [threading.Thread(target=poll, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()

    def stop() -> int:
        running.clear()
        for thread in threads:
            thread.join(70)
        return done[0]

    return stop


def in_process_ms(database: str, folder: Path, username: str, rounds: int) -> dict[str, float]:
    """Median server time, in one process with no contention, of the list's parts: the
    whole page, its rows partial, the quota usage panel the page includes, and the details
    the panel loads when it is opened."""
    from flask_login import login_user

    from app import create_app
    from app.auth.models import User
    from app.extensions import db
    from app.quotas.operations import usage_details_context, usage_panel_context

    config = {
        "SECRET_KEY": "bench-" + "x" * 40,
        "SQLALCHEMY_DATABASE_URI": database,
        "ORCHESTRATOR_URL": "demo",
    }
    app = create_app(config, instance_path=str(folder / "instance"))
    figures = {}
    with app.test_request_context("/deployments/"):
        user = db.session.scalar(db.select(User).where(User.username == username))
        login_user(user)
        for label, call in (
            ("page", lambda: app.view_functions["deployments.index"]()),
            ("rows", lambda: app.view_functions["deployments.rows"]()),
            ("usage panel", lambda: usage_panel_context(user)),
            ("usage details (on opening)", lambda: usage_details_context(user)),
        ):
            call()
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                call()
                times.append((time.perf_counter() - start) * 1000)
            figures[label] = statistics.median(times)
        db.session.remove()
        db.engine.dispose()
    return figures


def _line(label: str, figures: dict, base: dict | None = None, than="the trivial page") -> str:
    text = (
        f"{label}: p50 {figures['p50']:.1f} ms, p95 {figures['p95']:.1f} ms, "
        f"{figures['rps']:.0f} req/s, {figures['bytes'] / 1024:.1f} KB"
    )
    if base:
        text += (
            f" (p95 {figures['p95'] / base['p95']:.2f}x, throughput "
            f"{figures['rps'] / base['rps']:.2f}x {than})"
        )
    return text


def run_page_figures(url: str, username: str, seconds: float, label: str) -> dict:
    session = logged_in(url, username)
    trivial = measure(session, url + "/healthz", seconds)
    page = measure(session, url + "/deployments/", seconds)
    rows = measure(session, url + "/deployments/rows?poll=1", seconds)
    print(_line(f"{label}: trivial page (/healthz)", trivial))
    print(_line(f"{label}: My deployments (1,000 of 100,000)", page, trivial))
    print(_line(f"{label}: its rows partial, polled by htmx", rows, trivial))
    return page


def main(quick: bool = False) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fixtures.orchestrator_emulator import start_orchestrator_emulator

    seconds = 3 if quick else 8
    with tempfile.TemporaryDirectory(prefix="portal-bench-deployments-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        database, username = build_database(folder)
        print(
            f"deployments page: wrote {TOTAL:,} deployments ({MINE:,} for the measured user) "
            f"in {time.perf_counter() - started:.1f} s"
        )

        parts = in_process_ms(database, folder, username, 10 if quick else 30)
        print(
            "in one process, median server time: "
            + ", ".join(f"{label} {ms:.1f} ms" for label, ms in parts.items())
        )

        emulator = start_orchestrator_emulator()
        server = Server(_settings(database, emulator.url), folder)
        try:
            run_page_figures(server.url, username, seconds, "orchestrator answering")
            emulator.set_faults(latency=2)
            run_page_figures(server.url, username, seconds, "orchestrator answering in 2 s")
            emulator.set_faults(hang=True)
            run_page_figures(server.url, username, seconds, "orchestrator hanging")
            calls = len(emulator.requests())
            emulator.clear_faults()

            session = logged_in(server.url, username)
            alone = measure(session, server.url + "/catalogue/", seconds)
            stop = pollers(session, server.url + "/deployments/rows?poll=1", 4)
            busy = measure(session, server.url + "/catalogue/", seconds)
            polls = stop()
            print(_line("catalogue page alone", alone))
            label = f"catalogue page while 4 clients poll the rows ({polls} polls)"
            print(_line(label, busy, alone, than="the catalogue page alone"))
            print(f"orchestrator requests made by page views during all of the above: {calls}")
        finally:
            server.stop()
            emulator.stop()


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
