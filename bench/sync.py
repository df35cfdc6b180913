"""How long the sync worker takes to refresh 1,000 deployments in progress, and how many calls
it makes, against the emulator server answering every call 50 ms late.

Figures printed, for a pass that polls each deployment (listing not due) and for a pass whose
listing of the identity's deployments refreshes them all: wall time, calls by kind, and the
most calls made about any one deployment (the target: at most one per deployment plus the
list pages, in under 30 s).
"""

import secrets
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import requests

from tests.fixtures.orchestrator_emulator import start_orchestrator_emulator

TOKEN = "tok-bench-service"  # noqa: S105 - accepted by the benchmark's own emulator only
TEMPLATE = (Path(__file__).resolve().parents[1] / "tosca-catalog" / "vm.yaml").read_text()


def make_app(folder: Path, emulator_url: str):
    from app import create_app
    from app.extensions import db

    app = create_app(
        {
            "SECRET_KEY": "bench-" + "x" * 40,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/sync.sqlite",
            "ORCHESTRATOR_URL": emulator_url,
            "ORCHESTRATOR_SERVICE_IDENTITY": {"token": TOKEN},
            "ORCHESTRATOR_TIMEOUT": (2, 10),
            "DEPLOYMENTS_SYNC_INTERVAL_SECONDS": 3600,
        },
        instance_path=str(folder / "instance"),
    )
    with app.app_context():
        db.create_all()
    return app


def seed(app, emulator, count: int) -> None:
    """``count`` deployments in progress at the emulator, each with its row in the portal."""
    from app.auth.cli import create_local_user
    from app.clock import utcnow
    from app.deployments.models import Deployment
    from app.extensions import db

    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {TOKEN}"
    parameters = {"ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench@example"}
    uuids = []
    for _ in range(count):
        answer = session.post(
            f"{emulator.url}/deployments",
            timeout=10,
            json={"template": TEMPLATE, "parameters": parameters, "userGroup": "bench"},
        )
        answer.raise_for_status()
        uuids.append(answer.json()["uuid"])
    with app.app_context():
        user = create_local_user("bench", secrets.token_urlsafe(12))
        now = utcnow()
        db.session.add_all(
            Deployment(
                uuid=uuid,
                user_id=user.id,
                name=f"bench {i}",
                template_slug="vm",
                template_name="VM",
                parameters={},
                outputs={},
                charge={},
                request_options={},
                status="CREATE_IN_PROGRESS",
                next_check_at=now,
                submitted_at=now - timedelta(minutes=5),
                check_failures=0,
            )
            for i, uuid in enumerate(uuids)
        )
        db.session.commit()


def make_due(app, *, listing: bool) -> None:
    from app.clock import utcnow
    from app.deployments.models import Deployment, DeploymentListing
    from app.extensions import db

    with app.app_context():
        now = utcnow()
        db.session.execute(db.update(Deployment).values(next_check_at=now, claimed_until=None))
        db.session.execute(db.delete(DeploymentListing))
        later = now if listing else now + timedelta(hours=1)
        db.session.add(DeploymentListing(identity="service", next_at=later, failures=0))
        db.session.commit()


def timed_pass(app, emulator) -> tuple[float, Counter, int]:
    from app.sync.passes import sync_once

    emulator.clear_requests()
    with app.app_context():
        started = time.perf_counter()
        sync_once()
        elapsed = time.perf_counter() - started
    kinds, per_deployment = Counter(), Counter()
    for call in emulator.requests():
        if call["path"] == "/deployments":
            kinds["list pages"] += 1
        else:
            kinds[f"{call['method']} /deployments/<uuid>"] += 1
            per_deployment[call["path"]] += 1
    return elapsed, kinds, max(per_deployment.values(), default=0)


def main(quick: bool = False) -> None:
    count = 200 if quick else 1000
    emulator = start_orchestrator_emulator("--manual", "--group-rule", "given")
    try:
        emulator.add_token(TOKEN, "bench-service", "https://iam.bench/", groups=["bench"])
        with tempfile.TemporaryDirectory() as folder:
            app = make_app(Path(folder), emulator.url)
            seed(app, emulator, count)
            emulator.set_faults(latency=0.05)
            concurrency = app.config["DEPLOYMENTS_SYNC_CONCURRENCY"]
            print(
                f"Sync worker, {count} deployments in progress, 50 ms per orchestrator call, "
                f"{concurrency} calls at once:"
            )
            for label, listing in (("polling each", False), ("listing refresh", True)):
                make_due(app, listing=listing)
                elapsed, kinds, most = timed_pass(app, emulator)
                calls = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
                print(
                    f"  {label:16} {elapsed:6.2f} s  calls: {calls}; at most {most} per deployment"
                )
    finally:
        emulator.stop()


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
