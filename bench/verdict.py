"""What the per-site verdict adds to the launch form.

Figures printed (SQLite, one process, the starter catalogue's GPU notebook):
- the verdict rule alone (``site_verdicts`` and ``combined``) for one request and 20 sites;
- the sites' part of the live cost box (``site_offer``: two reads of sites and snapshots, then
  the verdicts) and the rendering of its list;
- the live cost endpoint (``/catalogue/<slug>/summary``) with no site known and with 20 sites,
  p50/p95, and the difference: what the verdict adds to the form (target: under 5 ms).

Run: ``python -m bench.verdict [--quick]``.
"""

from __future__ import annotations

import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from bench.catalogue import CONFIG, ROOT

SLUG = "jupyter-ml-gpu"
SITES = 20
PASSWORD = "bench password 1"


def _percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[max(int(len(times) * 0.95) - 1, 0)]


def _timed(call: Callable, rounds: int) -> tuple[float, float]:
    call()  # warm: caches, compiled templates
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return _percentiles(times)


def _build(folder: Path):
    from app import create_app
    from app.auth.local import hash_password
    from app.auth.models import User
    from app.catalogue.operations import import_folder
    from app.extensions import db

    # One log line per saved revision would bury the figures.
    logging.getLogger("app.catalogue").setLevel(logging.WARNING)
    app = create_app(
        {
            **CONFIG,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/bench.sqlite",
            "SESSION_COOKIE_SECURE": False,
        },
        instance_path=str(folder / "instance"),
    )
    with app.app_context():
        db.create_all()
        import_folder(ROOT / "tosca-catalog", author="bench")
        db.session.add(
            User(
                provider="local",
                subject="verdict",
                username="verdict",
                password_hash=hash_password(PASSWORD),
                groups=[],
                group_roles=[],
            )
        )
        db.session.commit()
    return app


def _add_sites(app, count: int) -> None:
    from datetime import timedelta

    from app.capacity.models import CapacitySnapshot, Site
    from app.clock import utcnow
    from app.extensions import db

    with app.app_context():
        for n in range(count):
            site = Site(name=f"SITE-{n:02d}", backend="paas", placement=f"sla-{n:02d}")
            site.snapshot = CapacitySnapshot(
                source="cluster-stats",
                read_at=utcnow() - timedelta(minutes=n),
                maintenance=n % 7 == 3,
                cores=64 * (n % 4),
                memory_gib=256.0,
                disk_gib=None if n % 5 == 0 else 2000.0,
                instances=20,
                gpus={"A100": n % 3, "T4": 4},
                gpus_known=n % 6 != 0,
            )
            db.session.add(site)
        db.session.commit()


def _frees(count: int):
    from datetime import timedelta

    from app.capacity.snapshot import SiteFree
    from app.clock import utcnow

    return [
        SiteFree(
            site=f"SITE-{n:02d}",
            source="cluster-stats",
            read_at=utcnow() - timedelta(minutes=n),
            maintenance=n % 7 == 3,
            cores=64 * (n % 4),
            memory_gib=256.0,
            disk_gib=2000.0,
            instances=20,
            gpus={"A100": n % 3},
            gpus_known=True,
        )
        for n in range(count)
    ]


def _client(app):
    from bench.forms import FormFields

    client = app.test_client()
    fields = FormFields()
    fields.feed(client.get("/login").text)
    answer = client.post(
        "/login",
        data={
            "csrf_token": fields.fields["csrf_token"],
            "username": "verdict",
            "password": PASSWORD,
            "method": "local",
        },
    )
    assert answer.status_code == 302, answer.status_code
    form = FormFields()
    form.feed(client.get(f"/catalogue/{SLUG}/").text)
    headers = {"HX-Request": "true", "X-CSRFToken": form.fields.get("csrf_token", "")}
    return lambda: client.post(f"/catalogue/{SLUG}/summary", data=form.fields, headers=headers)


def run(rounds: int) -> dict:
    from flask import render_template

    from app.capacity.verdicts import combined, site_verdicts
    from app.launch.sites import site_offer

    charge = {
        "cores": 8,
        "memory": 32 * 2**30,
        "disk": 100 * 2**30,
        "gpus": 2,
        "gpu_models": {"A100": 2},
        "nodes": 1,
        "uncounted": [],
    }
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        app = _build(Path(tmp))
        box = _client(app)
        assert b"Where it can run" not in box().data
        figures["cost box, no site"] = _timed(lambda: box(), rounds)
        _add_sites(app, SITES)
        assert b"Where it can run" in box().data
        figures[f"cost box, {SITES} sites"] = _timed(lambda: box(), rounds)
        frees = _frees(SITES)
        with app.test_request_context():
            figures["verdict rule alone"] = _timed(
                lambda: combined(True, site_verdicts(charge, frees)), rounds
            )
            entry = SimpleNamespace(serving_backend="paas")
            figures["site_offer (reads + rule)"] = _timed(
                lambda: site_offer(entry, charge, True), rounds
            )
            offer = site_offer(entry, charge, True)
            figures["sites list rendered"] = _timed(
                lambda: render_template("launch/_sites.html", summary={"sites": offer}), rounds
            )
    return figures


def main(quick: bool = False) -> None:
    rounds = 50 if quick else 300
    figures = run(rounds)
    print(f"Per-site verdict on the launch form ({SITES} sites, {rounds} rounds, SQLite):")
    for name, (p50, p95) in figures.items():
        print(f"  {name:<28} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms")
    empty, full = figures["cost box, no site"], figures[f"cost box, {SITES} sites"]
    added = full[0] - empty[0]
    print(f"  the verdict adds {added:.2f} ms (p50) to the cost box (target: under 5 ms)")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
