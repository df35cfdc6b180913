"""What server-side sessions and login throttling cost per request.

Figures printed (SQLite, and PostgreSQL when a server answers on 127.0.0.1:5432):
- a logged-in page view whose session is checked against ``user_sessions`` holding 10,000
  other logins (of another account), p50/p95, beside the same view with the check bypassed
  (the difference is what revocable sessions cost a page);
- one ``reserve_attempt`` (the atomic throttle upsert on two counters), p50/p95.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from contextlib import closing
from datetime import timedelta
from pathlib import Path

from bench.catalogue import CONFIG

PG_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"


def _percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def _app(url: str, instance: Path):
    from app import create_app
    from app.extensions import db

    app = create_app(
        {**CONFIG, "SQLALCHEMY_DATABASE_URI": url, "WTF_CSRF_ENABLED": False},
        instance_path=str(instance),
    )
    with app.app_context():
        db.create_all()
    return app


def _fill(app, others: int) -> None:
    from app.auth.cli import create_local_user
    from app.auth.models import UserSession
    from app.clock import utcnow
    from app.extensions import db

    with app.app_context():
        create_local_user("ada", "bench password 1")
        user = create_local_user("others", "bench password 2")
        now = utcnow()
        db.session.add_all(
            UserSession(
                token_digest=secrets.token_hex(32),
                user_id=user.id,
                provider="local",
                address="127.0.0.1",
                user_agent="bench",
                created_at=now,
                last_seen_at=now,
                expires_at=now + timedelta(days=7),
            )
            for _ in range(others)
        )
        db.session.commit()


def page_figures(url: str, instance: Path, rounds: int) -> dict:
    from app.auth import logins

    app = _app(url, instance)
    _fill(app, 10_000)
    client = app.test_client()
    client.post(
        "/login", data={"username": "ada", "password": "bench password 1", "method": "local"}
    )
    assert client.get("/account/").status_code == 200

    def timed() -> list[float]:
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            client.get("/account/")
            times.append((time.perf_counter() - start) * 1000)
        return times

    checked = timed()
    real = logins.current_record
    logins.current_record = lambda user_id: True  # the check bypassed, for comparison
    try:
        bypassed = timed()
    finally:
        logins.current_record = real
    return {"checked": _percentiles(checked), "bypassed": _percentiles(bypassed)}


def throttle_figures(url: str, instance: Path, rounds: int) -> tuple[float, float]:
    from app.auth import throttle

    app = _app(url, instance)
    app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"] = app.config["LOGIN_MAX_FAILURES_PER_ADDRESS"] = (
        rounds + 1
    )
    times = []
    with app.test_request_context():
        for n in range(rounds):
            start = time.perf_counter()
            throttle.reserve_attempt(f"user-{n % 50}", "127.0.0.1")
            times.append((time.perf_counter() - start) * 1000)
    return _percentiles(times)


def _backends(folder: Path):
    yield "SQLite", f"sqlite:///{folder}/sessions.sqlite", None
    try:
        import psycopg

        name = "portal_bench_" + secrets.token_hex(4)
        with closing(psycopg.connect(PG_SERVER, autocommit=True, connect_timeout=2)) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception:  # noqa: BLE001
        return
    try:
        yield "PostgreSQL", f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}", name
    finally:
        with closing(psycopg.connect(PG_SERVER, autocommit=True)) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main(quick: bool = False) -> None:
    rounds = 50 if quick else 300
    print("\n== Sessions and login throttling ==")
    with tempfile.TemporaryDirectory() as tmp:
        for label, url, _name in _backends(Path(tmp)):
            pages = page_figures(url, Path(tmp) / f"i-{label}", rounds)
            c50, c95 = pages["checked"]
            b50, b95 = pages["bypassed"]
            print(
                f"{label:10} logged-in page, 10,000 other sessions: p50 {c50:.2f} ms, "
                f"p95 {c95:.2f} ms"
            )
            print(
                f"{label:10} the same page, session check bypassed: p50 {b50:.2f} ms, "
                f"p95 {b95:.2f} ms"
            )
            t50, t95 = throttle_figures(url, Path(tmp) / f"t-{label}", rounds)
            print(
                f"{label:10} reserve_attempt (two atomic upserts): p50 {t50:.2f} ms, "
                f"p95 {t95:.2f} ms"
            )


if __name__ == "__main__":
    import sys

    main(quick="--quick" in sys.argv)
