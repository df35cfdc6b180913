"""How fast quotas are checked and shown.

Figures printed:
- the quota check at submit (``reserve``: lock, sum usage, check, commit) for a user holding
  1,000 deployments, on SQLite and, when a server answers on 127.0.0.1:5432, PostgreSQL
  (target: at most 5 ms);
- the launch form's live cost endpoint served by gunicorn, one client and then 4 clients at
  once, p50/p95, beside a trivial page served the same way (target: p95 at most 20 ms);
- the operators' user list with 10,000 users: first page by name, heaviest GPU users first,
  and a search.
"""

from __future__ import annotations

import secrets
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

from bench.catalogue import CONFIG, ROOT

PG_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
PASSWORD = "bench password 1"


def _app(url: str, instance: Path):
    from app import create_app
    from app.extensions import db

    app = create_app({**CONFIG, "SQLALCHEMY_DATABASE_URI": url}, instance_path=str(instance))
    with app.app_context():
        db.create_all()
    return app


def _percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def _charge(gpus: int = 0, cores: float = 1) -> dict:
    return {
        "cores": cores,
        "memory": 2 * 10**9,
        "disk": 0,
        "gpus": gpus,
        "gpu_models": {"T4": gpus} if gpus else {},
        "deployments": 1,
        "nodes": 1,
        "summary": "",
        "uncounted": [],
    }


def _deployment(user_id: int, charge: dict, **fields):
    from app.deployments.models import Deployment

    status = fields.pop("status", "CREATE_COMPLETE")
    return Deployment(
        user_id=user_id,
        name=f"bench-{secrets.token_hex(3)}",
        template_slug="vm",
        template_name="VM",
        parameters={},
        request_options={},
        outputs={},
        status=status,
        charge=charge,
        **fields,
    )


def reserve_figures(url: str, instance: Path, rounds: int) -> dict:
    """p50/p95 in ms, for a user holding 1,000 deployments, of the check alone (lock, sums,
    limits; rolled back) and of the whole ``reserve`` (check, insert, commit)."""
    from app.auth.models import User
    from app.extensions import db
    from app.quotas.editing import set_limits
    from app.quotas.operations import _lock, assess_launch, reserve

    app = _app(url, instance)
    with app.app_context():
        user = User(provider="local", subject="heavy", username="heavy", groups=["physics"])
        db.session.add(user)
        db.session.commit()
        db.session.add_all(_deployment(user.id, _charge(gpus=i % 2)) for i in range(1000))
        db.session.commit()
        generous = {"cores": 100_000, "gpus": 100_000, "gpu_models": {"T4": 100_000}}
        set_limits(None, "user", str(user.id), generous, "bench")
        checks, reserves = [], []
        for _ in range(rounds):
            # A launch request has its user loaded (by the session check) before the quota
            # check starts; the rollback and commit here expire it, so load it untimed.
            _ = user.groups
            start = time.perf_counter()
            _lock(user.id, None)
            assert all(a.fits for a in assess_launch(user, None, _charge(gpus=1)))
            db.session.rollback()
            checks.append((time.perf_counter() - start) * 1000)
            deployment = _deployment(user.id, _charge(gpus=1), status="SUBMITTING")
            _ = user.groups
            start = time.perf_counter()
            reserve(user, None, _charge(gpus=1), deployment)
            db.session.commit()  # as the launch's first step does; the commit ends the locks
            reserves.append((time.perf_counter() - start) * 1000)
        db.session.remove()
        db.engine.dispose()
    return {"check": _percentiles(checks), "reserve": _percentiles(reserves)}


def _postgres_url(tmp: Path) -> tuple[str, callable] | None:
    try:
        import psycopg

        with closing(psycopg.connect(PG_SERVER, autocommit=True, connect_timeout=3)) as conn:
            name = "portal_bench_" + secrets.token_hex(4)
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception:
        return None

    def drop():
        with closing(psycopg.connect(PG_SERVER, autocommit=True)) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}", drop


def _logged_in_client(app, role: str | None = None):
    from app.auth.cli import create_local_user
    from app.auth.operations import grant_role

    with app.app_context():
        user = create_local_user(f"bench-{secrets.token_hex(3)}", "bench password 1", "Bench")
        if role:
            grant_role(user, role, "bench")
        username, user_id = user.username, user.id
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
    client.post(
        "/login",
        data={
            "csrf_token": token,
            "username": username,
            "password": "bench password 1",
            "method": "local",
        },
    )
    return client, user_id, token


def _live_cost_database(tmp: Path) -> tuple[str, str]:
    """A catalogue, and a user with limits and 20 GPU deployments; the URL and username."""
    from app.auth.cli import create_local_user
    from app.catalogue.operations import import_folder
    from app.extensions import db
    from app.quotas.editing import set_limits

    tmp.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{tmp / 'live.sqlite'}"
    app = _app(url, tmp / "instance")
    with app.app_context():
        import_folder(str(ROOT / "tosca-catalog"), author="bench")
        user = create_local_user("bench-cost", PASSWORD, "Bench")
        set_limits(None, "user", str(user.id), {"gpus": 8, "cores": 128}, "bench")
        db.session.add_all(_deployment(user.id, _charge(gpus=1)) for _ in range(20))
        db.session.commit()
        db.engine.dispose()
    return url, "bench-cost"


def live_cost_figures(tmp: Path, seconds: float) -> dict:
    """p50/p95 (ms) and requests per second of the live cost endpoint and of /healthz, served
    by gunicorn (2 workers, as ``make run``), with 1 client and then 4 clients at once (four
    people typing into launch forms); the request asks for more GPUs than are left, the
    heavier case (holders are named)."""
    from bench.deployments_page import Server, _settings, logged_in, measure

    url, username = _live_cost_database(tmp)
    server = Server(_settings(url, "demo"), tmp)
    try:
        session = logged_in(server.url, username, PASSWORD)
        page = session.get(server.url + "/catalogue/kubernetes-cluster/", timeout=10).text
        token = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
        form = {"csrf_token": token, "num_cpu_workers": "3", "num_gpu_workers": "2"}
        cost_url = server.url + "/catalogue/kubernetes-cluster/summary"
        figures = {}
        for clients in (1, 4):
            figures[clients] = {
                "cost": measure(session, cost_url, seconds, clients, data=form),
                "trivial": measure(session, server.url + "/healthz", seconds, clients),
            }
        return figures
    finally:
        server.stop()


def operator_list_figures(tmp: Path, users: int, rounds: int) -> dict:
    """Median ms of the operators' list pages with ``users`` users (a third holding things)."""
    from app.auth.models import User
    from app.extensions import db

    app = _app(f"sqlite:///{tmp / 'users.sqlite'}", tmp / "instance-users")
    with app.app_context():
        db.session.execute(
            User.__table__.insert(),
            [
                {
                    "provider": "ldap",
                    "subject": f"s{i}",
                    "username": f"user{i:05d}",
                    "display_name": f"User {i}",
                    "email": f"user{i}@example.org",
                    "groups": [f"group{i % 20}"],
                    "group_roles": [],
                    "active": True,
                    "session_version": 1,
                }
                for i in range(users)
            ],
        )
        db.session.commit()
        ids = db.session.scalars(db.select(User.id)).all()
        db.session.add_all(_deployment(uid, _charge(gpus=uid % 3)) for uid in ids[::3])
        db.session.commit()
    client, _, _ = _logged_in_client(app, "operator")

    def median(url: str) -> float:
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            assert client.get(url).status_code == 200
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    figures = {
        "by name": median("/quotas/"),
        "heaviest GPU users first": median("/quotas/?sort=gpus"),
        "search": median("/quotas/?q=user0421"),
        "page 150": median("/quotas/?page=150"),
    }
    with app.app_context():
        db.engine.dispose()
    return figures


def _print_reserve(backend: str, figures: dict) -> None:
    (c50, c95), (r50, r95) = figures["check"], figures["reserve"]
    print(
        f"quota check at submit, 1,000 held deployments, {backend}: check p50 {c50:.2f} ms, "
        f"p95 {c95:.2f} ms (target 5 ms); with the insert and commit p50 {r50:.2f} ms, "
        f"p95 {r95:.2f} ms"
    )


def main(quick: bool = False) -> None:
    rounds = 30 if quick else 200
    with tempfile.TemporaryDirectory(prefix="portal-bench-quotas-") as tmp:
        tmp = Path(tmp)
        _print_reserve(
            "SQLite", reserve_figures(f"sqlite:///{tmp / 'r.sqlite'}", tmp / "i1", rounds)
        )
        postgres = _postgres_url(tmp)
        if postgres:
            url, drop = postgres
            try:
                _print_reserve("PostgreSQL", reserve_figures(url, tmp / "i2", rounds))
            finally:
                drop()
        else:
            print("quota check at submit, PostgreSQL: no server on 127.0.0.1:5432, skipped")
        live = live_cost_figures(tmp / "live", 3 if quick else 8)
        for clients, figures in live.items():
            cost, trivial = figures["cost"], figures["trivial"]
            print(
                f"live cost endpoint, gunicorn (2 workers), {clients} client(s) at once: "
                f"p50 {cost['p50']:.1f} ms, p95 {cost['p95']:.1f} ms (target p95 20 ms), "
                f"{cost['rps']:.0f} req/s; trivial page p50 {trivial['p50']:.1f} ms, p95 "
                f"{trivial['p95']:.1f} ms, {trivial['rps']:.0f} req/s; p95 ratio "
                f"{cost['p95'] / trivial['p95']:.1f}x"
            )
        figures = operator_list_figures(tmp, 2_000 if quick else 10_000, 5 if quick else 20)
        shown = ", ".join(f"{name} {ms:.0f} ms" for name, ms in figures.items())
        print(f"operators' user list, {2_000 if quick else 10_000:,} users (median): {shown}")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
