"""What one listing of the service identity costs the portal with 100,000 open deployments.

The sync worker lists the service identity's deployments every DEPLOYMENTS_SYNC_LIST_SECONDS.
Here PostgreSQL (a database of its own, dropped afterwards) holds 100,000 open deployments of
1,000 local users, and the orchestrator's listing (served from memory: the emulator pages a
list of this size far slower than any orchestrator) names them all; since the previous
listing, 100 changed status and 10 vanished. Figures printed: the wall time of the pass in the
portal, and the rows it wrote.

``python -m bench.listing [--quick]``
"""

from __future__ import annotations

import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.quotas import _postgres_url

CHANGED, VANISHED = 100, 10


class ListedOrchestrator:
    """The orchestrator's side of one listing: every deployment, as its list pages give them
    (an orchestrator client's calls that a listing makes)."""

    sent_tokens: frozenset = frozenset()

    def __init__(self, records: list[dict]):
        self.records = {record["uuid"]: record for record in records}

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        return False

    def list_deployments(self, *_args, **_kwargs) -> list[dict]:
        return list(self.records.values())

    def get_deployment(self, uuid: str) -> dict:
        from app.backends.paas.errors import DeploymentNotFound

        if uuid not in self.records:
            raise DeploymentNotFound(status_code=404)
        return self.records[uuid]


def build(url: str, folder: Path, total: int) -> list[dict]:
    """Write ``total`` open deployments; returns the orchestrator's records of them."""
    from app import create_app
    from app.auth.models import User
    from app.deployments.models import Deployment, DeploymentListing
    from app.extensions import db

    config = {"SECRET_KEY": "bench-" + "x" * 40, "SQLALCHEMY_DATABASE_URI": url}
    app = create_app({**config, "ORCHESTRATOR_URL": "demo"}, instance_path=str(folder / "i"))
    rng = random.Random(2)
    now = datetime.now(UTC).replace(tzinfo=None)
    old = now - timedelta(hours=2)
    with app.app_context():
        db.create_all()
        people = [
            User(provider="local", subject=f"l-{n}", username=f"l-{n}", groups=[], group_roles=[])
            for n in range(1_000)
        ]
        db.session.add_all(people)
        db.session.commit()
        rows, records = [], []
        for n in range(total):
            uuid = f"{n:08x}-0000-4000-8000-{rng.getrandbits(48):012x}"
            rows.append(
                {
                    "uuid": uuid,
                    "user_id": people[n % len(people)].id,
                    "name": f"Machine {n}",
                    "template_slug": "vm",
                    "template_name": "Virtual machine",
                    "template_text": "tosca_definitions_version: tosca_simple_yaml_1_0\n" * 40,
                    "parameters": {"num_cpus": 2},
                    "request_options": {},
                    "charge": {"cores": 2},
                    "status": "ready",  # the portal's word for CREATE_COMPLETE
                    "outputs": {"node_ip": f"10.2.{n // 250 % 250}.{n % 250}"},
                    "created_at": old,
                    "submitted_at": old,
                    "check_failures": 0,
                }
            )
            stamp = old.strftime("%Y-%m-%dT%H:%M+0000")
            records.append(
                {
                    "uuid": uuid,
                    "status": "CREATE_COMPLETE",
                    "creationTime": stamp,
                    "updateTime": stamp,
                    "outputs": {"node_ip": f"10.2.{n // 250 % 250}.{n % 250}"},
                    "cloudProviderName": "CLOUD-SITE-A",
                }
            )
        for start in range(0, total, 5_000):
            db.session.execute(Deployment.__table__.insert(), rows[start : start + 5_000])
        # The previous listing began an hour ago.
        db.session.add(
            DeploymentListing(
                identity="service", next_at=now, listed_at=now - timedelta(hours=1), failures=0
            )
        )
        db.session.commit()
        db.engine.dispose()
    return records


def timed_listing(url: str, folder: Path, records: list[dict]) -> tuple[float, int]:
    """One listing pass of the service identity: its wall time and the UPDATEs it ran."""
    from sqlalchemy import event

    from app import create_app
    from app.backends.paas.backend import PaasBackend
    from app.deployments import identity
    from app.extensions import db
    from app.sync import asking, listing

    config = {
        "SECRET_KEY": "bench-" + "x" * 40,
        "SQLALCHEMY_DATABASE_URI": url,
        "ORCHESTRATOR_URL": "http://127.0.0.1:9",
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": "unused"},
        "DEPLOYMENTS_SUBMITTING_STALE_SECONDS": 0,
    }
    app = create_app(config, instance_path=str(folder / "i"))
    orchestrator = ListedOrchestrator(records)
    writes = []
    with app.app_context():
        # The service identity's backend, asking the listing above instead of a server.
        original = asking.backend_for_identity
        asking.backend_for_identity = lambda _key: PaasBackend(orchestrator)
        event.listen(
            db.engine,
            "before_cursor_execute",
            lambda _c, _k, statement, parameters, _x, many: (
                writes.append(len(parameters) if many else 1)
                if statement.startswith("UPDATE deployments")
                else None
            ),
        )
        try:
            started = time.perf_counter()
            listing.list_identity(identity.SERVICE)
            elapsed = time.perf_counter() - started
        finally:
            asking.backend_for_identity = original
        db.engine.dispose()
    return elapsed, sum(writes)


def main(quick: bool = False) -> None:
    total = 10_000 if quick else 100_000
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        database = _postgres_url(folder)
        if database is None:
            print("Listing: skipped (no PostgreSQL at 127.0.0.1:5432)")
            return
        url, drop = database
        try:
            records = build(url, folder, total)
            # Since the previous listing: some changed status, some are gone.
            recent = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M+0000")
            for record in records[:CHANGED]:
                record.update(status="UPDATE_COMPLETE", updateTime=recent)
            listed = records[: total - VANISHED]
            elapsed, writes = timed_listing(url, folder, listed)
            print(
                f"Listing the service identity: {total:,} open deployments, {CHANGED} changed "
                f"and {VANISHED} vanished since the previous listing: {elapsed:.2f} s, "
                f"{writes:,} row updates"
            )
        finally:
            drop()


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
