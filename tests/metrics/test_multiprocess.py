"""Under gunicorn with several workers, /metrics adds up every worker's figures, including
those of a worker that has since died (prometheus_client's multiprocess mode)."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.sqlite_only("the workers share one SQLite file; counting is the point")

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2


class Gunicorn:
    def __init__(self, process: subprocess.Popen, log: Path):
        self.process, self.log = process, log

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 60) -> list[str]:
        """Wait until the log holds ``count`` matches of ``pattern``; returns them."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.findall(pattern, self.log.read_text(), re.M)
            if len(found) >= count:
                return found
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return self.wait_for(r"Listening at: (http://127\.0\.0\.1:\d+)")[0]

    def served_by(self, path: str) -> list[int]:
        """The pid of the worker that answered each request for ``path``, from the access log."""
        pattern = rf"^access <(\d+)> GET {re.escape(path)} "
        return [int(pid) for pid in re.findall(pattern, self.log.read_text(), re.M)]

    def wait_until_every_worker_answers(self, timeout: float = 120) -> None:
        """Scrape until each worker has answered once: workers load the portal after booting,
        which takes seconds on a busy machine, and only a loaded worker accepts."""
        deadline = time.monotonic() + timeout
        while len(set(self.served_by("/metrics"))) < WORKERS:
            assert time.monotonic() < deadline, self.log.read_text()
            answer = requests.get(
                f"{self.url}/metrics", timeout=timeout, headers={"Connection": "close"}
            )
            assert answer.status_code == 200, answer.text
            self.wait_for(r"^access <\d+> GET /metrics 200", 1)

    def worker_pids(self) -> set[int]:
        return {int(p) for p in re.findall(r"Booting worker with pid: (\d+)", self.log.read_text())}


@pytest.fixture
def gunicorn(make_app, tmp_path):
    """Two gunicorn workers serving the portal on a free loopback port, their metrics in a
    fresh PROMETHEUS_MULTIPROC_DIR; the database is a SQLite file the test made."""
    database = tmp_path / "portal.sqlite"
    make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}")  # creates the tables
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    log = tmp_path / "gunicorn.log"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PORTAL_")} | {
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "PORTAL_INSTANCE_PATH": str(tmp_path / "instance"),
        "PORTAL_SECRET_KEY": "s" * 40,
        "PORTAL_SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}",
        "PORTAL_ORCHESTRATOR_URL": "demo",
    }
    with log.open("w") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "config/gunicorn.conf.py",
                "--bind",
                "127.0.0.1:0",
                "--workers",
                str(WORKERS),
                "--access-logfile",
                "-",
                "--access-logformat",
                "access %(p)s %(m)s %(U)s %(s)s",
                "wsgi:app",
            ],
            cwd=ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    server = Gunicorn(process, log)
    try:
        server.wait_for(r"Booting worker with pid", WORKERS)
        server.wait_until_every_worker_answers()
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _requests_counted(url: str, route: str) -> float:
    answer = requests.get(f"{url}/metrics", timeout=10)
    assert answer.status_code == 200, answer.text
    return sum(
        sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
        if sample.name == "portal_http_requests_total" and sample.labels["route"] == route
    )


def test_requests_answered_by_several_workers_are_counted_exactly_once(gunicorn):
    url = gunicorn.url
    count = 0
    deadline = time.monotonic() + 120
    # A connection each, until every worker has answered some: which worker accepts a new
    # connection is up to the workers, not to the order of the requests.
    while count < 40 or len(set(gunicorn.served_by("/healthz"))) < WORKERS:
        assert time.monotonic() < deadline, gunicorn.log.read_text()
        assert requests.get(f"{url}/healthz", timeout=10, headers={"Connection": "close"}).ok
        count += 1
        gunicorn.wait_for(r"^access <\d+> GET /healthz 200", count)

    assert _requests_counted(url, "/healthz") == count
    assert _requests_counted(url, "/healthz") == count  # a scrape counts no /healthz itself


def test_a_worker_that_dies_keeps_its_requests_counted(gunicorn):
    url = gunicorn.url
    for _ in range(10):
        assert requests.get(f"{url}/healthz", timeout=10, headers={"Connection": "close"}).ok
    gunicorn.wait_for(r"^access <\d+> GET /healthz 200", 10)
    first = gunicorn.worker_pids()

    victim = gunicorn.served_by("/healthz")[0]
    os.kill(victim, signal.SIGKILL)
    # gunicorn reaps it (child_exit marks it dead) and boots a replacement.
    gunicorn.wait_for(r"Booting worker with pid", WORKERS + 1)
    assert gunicorn.worker_pids() - first
    for _ in range(5):
        assert requests.get(f"{url}/healthz", timeout=10, headers={"Connection": "close"}).ok

    assert _requests_counted(url, "/healthz") == 15
