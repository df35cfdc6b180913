"""How fast the JSON API lists a busy researcher's deployments, against the HTML list.

The same database as the My deployments benchmark (100,000 deployments, 1,000 of them the
measured user's) is served by gunicorn (2 workers) on loopback; a few concurrent clients fetch
for a fixed time. Figures printed:
- the trivial page (the health check), My deployments (HTML, logged in) and
  ``GET /api/v1/deployments`` (a personal access token, the same page size), each with p50/p95
  latency and throughput, the API's as a ratio to the trivial page and to the HTML list
  measured in the same run (the target: within 2x of the HTML list);
- the cost of a token check in one process: finding and checking a valid token, and refusing
  an unknown one.

``python -m bench.api [--quick]``
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

import requests

from bench.deployments_page import (
    MINE,
    ROOT,
    TOTAL,
    Server,
    _line,
    _settings,
    build_database,
    logged_in,
)


def measure(session: requests.Session, url: str, seconds: float, clients: int = 3) -> dict:
    """GET ``url`` from ``clients`` threads (each with ``session``'s cookies and headers)."""
    times: list[float] = []
    sizes: list[int] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client():
        own = requests.Session()
        own.cookies.update(session.cookies)
        own.headers.update(session.headers)
        mine, size = [], 0
        while time.monotonic() < stop:
            start = time.perf_counter()
            answer = own.get(url, timeout=30)
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


def _app(database: str, folder: Path):
    from app import create_app

    config = {
        "SECRET_KEY": "bench-" + "x" * 40,
        "SQLALCHEMY_DATABASE_URI": database,
        "ORCHESTRATOR_URL": "demo",
    }
    return create_app(config, instance_path=str(folder / "instance"))


def create_token(database: str, folder: Path, username: str) -> str:
    from app.auth import access_tokens
    from app.auth.models import User
    from app.extensions import db

    app = _app(database, folder)
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.username == username))
        _record, token = access_tokens.create(
            user, "bench", list(access_tokens.SCOPES), timedelta(days=1)
        )
        db.engine.dispose()
    return token


def token_check_us(database: str, folder: Path, token: str, rounds: int) -> dict[str, float]:
    """Median microseconds of checking a valid token (its use already noted this minute, as
    for a busy script) and of refusing an unknown one, in one process."""
    from app.auth import access_tokens
    from app.extensions import db

    app = _app(database, folder)
    figures = {}
    with app.test_request_context("/api/v1/deployments"):
        for label, value in (("valid token", token), ("unknown token", "rcp_" + "x" * 43)):
            access_tokens.authenticate(value, "127.0.0.1")
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                access_tokens.authenticate(value, "127.0.0.1")
                times.append((time.perf_counter() - start) * 1e6)
                db.session.expire_all()
            figures[label] = statistics.median(times)
        db.session.remove()
        db.engine.dispose()
    return figures


def main(quick: bool = False) -> None:
    sys.path.insert(0, str(ROOT))
    seconds = 3 if quick else 8
    with tempfile.TemporaryDirectory(prefix="portal-bench-api-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        database, username = build_database(folder)
        token = create_token(database, folder, username)
        print(
            f"api: wrote {TOTAL:,} deployments ({MINE:,} for the measured user) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        checks = token_check_us(database, folder, token, 200 if quick else 1000)
        print(
            "api: token check in one process, median: "
            + ", ".join(f"{label} {us:.0f} µs" for label, us in checks.items())
        )
        server = Server(_settings(database, "demo"), folder)
        try:
            browser = logged_in(server.url, username)
            script = requests.Session()
            script.headers["Authorization"] = f"Bearer {token}"
            trivial = measure(browser, server.url + "/healthz", seconds)
            html = measure(browser, server.url + "/deployments/", seconds)
            api = measure(script, server.url + "/api/v1/deployments?size=25", seconds)
        finally:
            server.stop()
        print(_line("api: trivial page (/healthz)", trivial))
        print(_line("api: My deployments, HTML (1,000 of 100,000)", html, trivial))
        print(_line("api: GET /api/v1/deployments (25 a page)", api, trivial))
        print(
            f"api: the API list against the HTML list: p50 {api['p50'] / html['p50']:.2f}x, "
            f"p95 {api['p95'] / html['p95']:.2f}x, throughput {api['rps'] / html['rps']:.2f}x "
            "(target: latency within 2x)"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
