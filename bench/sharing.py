"""What the one access rule for deployments costs a request, and concurrent share changes.

Figures printed (SQLite, and PostgreSQL when a server answers on 127.0.0.1:5432):
- ``access.rights`` for one deployment, as a request asks it once (its per-request memory
  emptied each time), among 20,000 deployments of 200 people with 5,000 shares: for the
  owner (no query), a co-owner through a group share (one query for the shares, one for the
  groups they manage) and a stranger (the same two, finding nothing); p50/p95 in ms. Target:
  under 0.5 ms a request.
- 20 concurrent share and revoke requests on one deployment against two portal processes
  (gunicorn, 2 workers) on PostgreSQL: wall time, p95 answer time, and how many answers were
  the state their own change made (all 20 should be).
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.sessions import _app, _backends


def _percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def _fill(app, people: int, deployments: int, shares: int) -> dict:
    from sqlalchemy import insert

    from app.auth.managers import name_manager
    from app.auth.models import User
    from app.clock import utcnow
    from app.deployments.models import Deployment, DeploymentShare
    from app.extensions import db

    with app.app_context():
        now = utcnow()
        db.session.execute(
            insert(User),
            [
                {
                    "provider": "local",
                    "subject": f"u{n}",
                    "username": f"u{n}",
                    "groups": [f"g{n % 20}"],
                    "group_roles": [],
                    "managed_by_membership": [],
                    "created_at": now,
                }
                for n in range(people)
            ],
        )
        ids = list(db.session.scalars(db.select(User.id).order_by(User.id)))
        db.session.execute(
            insert(Deployment),
            [
                {
                    "user_id": ids[n % people],
                    "name": f"d{n}",
                    "template_slug": "bench",
                    "group_name": f"g{n % 20}",
                    "status": "ready",
                    "created_at": now,
                }
                for n in range(deployments)
            ],
        )
        deployment_ids = list(db.session.scalars(db.select(Deployment.id).order_by(Deployment.id)))
        db.session.execute(
            insert(DeploymentShare),
            [
                {
                    "deployment_id": deployment_ids[(n * 7) % deployments],
                    "kind": "group" if n % 2 else "user",
                    "name": f"g{n % 20}" if n % 2 else f"u{(n * 3) % people}",
                    "user_id": None if n % 2 else ids[(n * 3) % people],
                    "role": "co-owner" if n % 3 else "viewer",
                    "granted_at": now,
                }
                for n in range(shares)
            ],
        )
        db.session.commit()
        name_manager("g5", db.session.get(User, ids[1]), "bench")
        target = deployment_ids[7]  # shared with a group (n = 1: g1, co-owner)
        owner = db.session.get(Deployment, target).user_id
        member = next(i for n, i in enumerate(ids) if n % 20 == 1 and i != owner)
        stranger = next(i for n, i in enumerate(ids) if n % 20 == 3 and i != owner)
        return {"deployment": target, "owner": owner, "co-owner": member, "stranger": stranger}


def rule_figures(url: str, instance: Path, rounds: int) -> dict:
    from flask import g

    from app.auth.models import User
    from app.deployments import access
    from app.deployments.models import Deployment
    from app.extensions import db

    app = _app(url, instance)
    who = _fill(app, 200, 20_000, 5_000)
    figures = {}
    with app.test_request_context():
        deployment = db.session.get(Deployment, who["deployment"])
        for role in ("owner", "co-owner", "stranger"):
            user = db.session.get(User, who[role])
            times, rights = [], None
            for _ in range(rounds):
                g.pop("_deployment_relations", None)
                g.pop("_managed_groups", None)
                start = time.perf_counter()
                rights = access.rights(user, deployment)
                times.append((time.perf_counter() - start) * 1000)
            figures[role] = (*_percentiles(times), len(rights))
    return figures


def concurrency_figures(database_url: str, folder: Path) -> tuple[float, float, int]:
    """(wall ms, p95 ms, answers that were their own change's state) for 20 requests."""
    import requests

    from tests.api.live import LivePortal
    from tests.api.test_shares_api import _people

    portal = LivePortal(database_url, folder)
    portal.prepare()
    _people(database_url, str(folder / "people"))
    portal.start()
    try:
        token = portal.token_from_account_page(("deployments:read", "deployments:write"))
        headers = {"Authorization": f"Bearer {token}"}
        body = {
            "template": "test-notebook",
            "name": "race",
            "parameters": {"num_cpus": 2, "jupyter_password": "s3cret-passw0rd"},
        }
        made = requests.post(
            f"{portal.url}/api/v1/deployments", json=body, headers=headers, timeout=60
        )
        path = f"{portal.url}/api/v1/deployments/{made.json()['id']}/shares/users/bob"

        def one(index: int):
            start = time.perf_counter()
            if index % 3 == 2:
                ok = requests.delete(path, headers=headers, timeout=60).status_code == 204
            else:
                role = ("viewer", "co-owner")[index % 2]
                answer = requests.put(path, json={"role": role}, headers=headers, timeout=60)
                ok = answer.json()["items"] == [{"kind": "user", "name": "bob", "role": role}]
            return (time.perf_counter() - start) * 1000, ok

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(one, range(20)))
        wall = (time.perf_counter() - start) * 1000
    finally:
        portal.stop()
    return wall, _percentiles([ms for ms, _ok in answers])[1], sum(ok for _ms, ok in answers)


def main(quick: bool = False) -> None:
    rounds = 200 if quick else 2000
    print("\n== Access rule and sharing ==")
    with tempfile.TemporaryDirectory() as tmp:
        for label, url, name in _backends(Path(tmp)):
            figures = rule_figures(url, Path(tmp) / f"i-{label}", rounds)
            for role, (p50, p95, count) in figures.items():
                print(
                    f"{label:10} access rule for a {role:8} (20,000 deployments, 5,000 shares): "
                    f"p50 {p50:.3f} ms, p95 {p95:.3f} ms ({count} rights)"
                )
            if name is not None:
                folder = Path(tmp) / f"live-{secrets.token_hex(2)}"
                folder.mkdir()
                wall, p95, right = concurrency_figures(url, folder)
                print(
                    f"{label:10} 20 concurrent share/revoke requests, 2 processes: "
                    f"{wall:.0f} ms in all, p95 {p95:.0f} ms, {right}/20 answered by their state"
                )


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
