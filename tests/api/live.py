"""A running portal for the rcp tests: gunicorn (2 workers) on a free loopback port and the sync
worker beside it, on the demo orchestrator and this test's database, with ``rcp`` run as a
subprocess against it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

from app import create_app
from app.auth.cli import create_local_user
from app.extensions import db
from app.leases.editing import parse_field, set_policy
from tests.api.conftest import publish_templates
from tests.conftest import TEST_CONFIG, csrf_from

ROOT = Path(__file__).resolve().parents[2]
RCP = str(Path(sys.executable).with_name("rcp"))
PASSWORD = "correct horse battery"
START_SECONDS = 180
# The lease policy of "secret-notebook": one extend of an hour, open at any time.
LEASE_POLICY = {"default": "3h", "extend_step": "1h", "max_extends": "1", "cap": "1d"}
# A busy shared machine can take this long to answer a page; the tests wait for answers.
REQUEST_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LivePortal:
    def __init__(self, database_url: str, folder: Path):
        self.folder = folder
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "PORTAL_SECRET_KEY": TEST_CONFIG["SECRET_KEY"],
            "PORTAL_SQLALCHEMY_DATABASE_URI": database_url,
            "PORTAL_ORCHESTRATOR_URL": "demo",
            "PORTAL_ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS": "1",
            "PORTAL_ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS": "null",
            "PORTAL_SESSION_COOKIE_SECURE": "false",
            "PORTAL_LAUNCHES_PER_MINUTE": "0",
            "PORTAL_PORTAL_BASE_URL": self.url,
            "PORTAL_DEPLOYMENTS_SYNC_INTERVAL_SECONDS": "0",
            "PORTAL_DEPLOYMENTS_SYNC_TICK_SECONDS": "0.2",
            "PORTAL_CATALOGUE_RELOAD_SECONDS": "3600",
            "PORTAL_LOG_LEVEL": "WARNING",
            "PORTAL_INSTANCE_PATH": str(folder / "instance"),
            "FLASK_APP": "wsgi",
        }
        self.processes: list[subprocess.Popen] = []
        self.log = open(folder / "portal.log", "w")  # noqa: SIM115

    def prepare(self) -> None:
        config = {
            **TEST_CONFIG,
            "SQLALCHEMY_DATABASE_URI": self.env["PORTAL_SQLALCHEMY_DATABASE_URI"],
        }
        app = create_app(config, instance_path=self.env["PORTAL_INSTANCE_PATH"])
        publish_templates(app)
        with app.app_context():
            # A time limit on one template, as a site would set it: rcp extend works on it.
            set_policy(
                None,
                "secret-notebook",
                None,
                {key: parse_field(key, text) for key, text in LEASE_POLICY.items()},
                "course",
            )
            user = create_local_user("ada", PASSWORD)
            user.groups = ["physics"]
            db.session.commit()
            db.engine.dispose()

    def _spawn(self, command: list[str]) -> None:
        self.processes.append(
            subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
            )
        )

    def start(self) -> None:
        self._spawn(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "wsgi:app",
            ]
        )
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if requests.get(self.url + "/healthz", timeout=START_SECONDS).status_code == 200:
                    break
            except requests.ConnectionError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the portal did not start; see {self.log.name}") from None
                time.sleep(0.1)  # not listening yet
        self._spawn([sys.executable, "-m", "flask", "deployments", "sync", "--loop"])

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()  # a process of this test's own, stuck on a busy machine
                process.wait(timeout=30)
        self.log.close()

    def token_from_account_page(self, scopes) -> str:
        """Log in as ada in a browser-like session and create a token on the Account page."""
        browser = requests.Session()
        login = browser.get(self.url + "/login", timeout=REQUEST_SECONDS)
        browser.post(
            self.url + "/login",
            data={
                "csrf_token": csrf_from(login.text),
                "username": "ada",
                "password": PASSWORD,
                "method": "local",
            },
            timeout=REQUEST_SECONDS,
        )
        account = browser.get(self.url + "/account/", timeout=REQUEST_SECONDS)
        created = browser.post(
            self.url + "/account/tokens",
            data={
                "csrf_token": csrf_from(account.text),
                "name": "rcp",
                "scopes": list(scopes),
                "days": "7",
            },
            timeout=REQUEST_SECONDS,
        )
        assert created.status_code == 201, created.text
        return created.text.split('id="new-token">')[1].split("<")[0]

    def rcp(self, *args: str, token: str, env=None, check_json=True):
        """Run rcp; returns (exit code, parsed --json output or text, stderr)."""
        result = subprocess.run(
            [RCP, *args],
            env={
                "PATH": os.environ["PATH"],
                "HOME": str(self.folder),
                "RCP_URL": self.url,
                "RCP_TOKEN": token,
                **(env or {}),
            },
            capture_output=True,
            text=True,
            timeout=300,
        )
        output = result.stdout
        if check_json and "--json" in args and output.strip():
            output = json.loads(output)
        return result.returncode, output, result.stderr
