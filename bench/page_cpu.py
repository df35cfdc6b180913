"""The CPU one web worker spends per request on each page kind, against the trivial page.

The set-up of the performance issue: one app in one process on SQLite, 100,000 deployments of
2,000 people (50 each), the measured researcher logged in with one of theirs in progress. Each
page kind of bench/requests_cost.py is asked for in English, warmed up, then timed with
``time.process_time`` around the test client's request (the client's own share included, as
small as the trivial page shows); the figure is the median over ``rounds`` requests, and the
whole is repeated ``repeats`` times, printing each page's median of the repeats and its spread.
Process CPU rather than wall time, so that other work on a shared machine counts less; the
figures still move by 10-20 % on a busy one: compare medians of runs made together.

With ``--postgresql`` the same runs against a database of its own on the PostgreSQL server at
127.0.0.1:5432 (created and dropped here), as the crowd's hosts are: the worker's CPU then
includes the driver's, and the server's own work is not counted.

``python -m bench.page_cpu [--rounds 60] [--repeats 5] [--deployments 100000] [--profile KIND]
[--postgresql]``
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from bench.quotas import _postgres_url

OWNERS = 2_000
TOTAL = 100_000
LANGUAGE = "en"


def _cpu_ms(call, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def _fill_rows(app, username: str) -> None:
    """Give the researcher's deployments what a real row shows: a charge, a group, a region and
    the outputs a ready machine has (an address and its SSH command)."""
    from app.auth.models import User
    from app.deployments.models import Deployment
    from app.extensions import db

    charge = {"cores": 2, "memory": 8 * 10**9, "disk": 50 * 10**9, "gpus": 0}
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.username == username))
        for deployment in db.session.scalars(
            db.select(Deployment).where(Deployment.user_id == user.id)
        ):
            deployment.charge = charge
            deployment.group_name = "physics"
            deployment.region = "region-1"
            if deployment.outputs:
                address = deployment.outputs["node_ip"]
                deployment.outputs = {"node_ip": address, "ssh_access": f"cloudadm@{address}"}
        db.session.commit()
        db.session.remove()


def _calls(call, rounds: int = 10) -> float:
    """Python function calls per request (cProfile): a figure the machine's load does not
    move, to tell a change from noise."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        call()
    profiler.disable()
    return pstats.Stats(profiler).total_calls / rounds


def run(
    rounds: int, repeats: int, total: int, profile: str | None = None, postgresql: bool = False
) -> dict:
    """Each page kind's medians (ms) over ``repeats`` runs of ``rounds`` requests, with the
    answer's size in bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not postgresql:
            return _run(folder, f"sqlite:///{folder}/pages.sqlite", rounds, repeats, total, profile)
        database = _postgres_url(folder)
        if database is None:
            raise SystemExit("--postgresql needs PostgreSQL at 127.0.0.1:5432.")
        url, drop = database
        try:
            return _run(folder, url, rounds, repeats, total, profile)
        finally:
            drop()


def _run(folder: Path, url: str, rounds: int, repeats: int, total: int, profile) -> dict:
    from bench.requests_cost import EXPECTED, build, pages

    app, username = build(folder, url, total, owners=OWNERS)
    _fill_rows(app, username)
    calls = pages(app, username, LANGUAGE)
    sizes, counted = {}, {}
    for kind, call in calls.items():
        for _ in range(10):  # warm-up: templates compiled, caches and pools filled
            answer = call()
        assert answer.status_code == EXPECTED.get(kind, 200), (kind, answer.status_code)
        sizes[kind] = len(answer.data)
        counted[kind] = _calls(call)
    # As a worker does once loaded (config/gunicorn.conf.py's ``post_worker_init``): what
    # the app holds is left out of the collector's full passes.
    gc.collect()
    gc.freeze()
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(rounds):
            calls[profile]()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(40)
    runs: dict[str, list[float]] = {kind: [] for kind in calls}
    for _ in range(repeats):
        for kind, call in calls.items():
            runs[kind].append(_cpu_ms(call, rounds))
    from app.extensions import db

    with app.app_context():
        db.engine.dispose()
    gc.unfreeze()
    return {kind: (runs[kind], sizes[kind], counted[kind]) for kind in calls}


def report(figures: dict, rounds: int, repeats: int, total: int, database: str = "SQLite") -> None:
    print(
        f"\n== CPU per request, one worker on {database} ({total:,} deployments of {OWNERS:,} "
        f"people, {total // OWNERS} the researcher's; process CPU, median of {rounds} requests, "
        f"median and range of {repeats} runs) =="
    )
    trivial = statistics.median(figures["trivial page"][0])
    print(
        f"{'page kind':24} {'CPU ms':>7} {'range':>13} {'x trivial':>9} {'size':>9} "
        f"{'calls/req':>9}"
    )
    for kind, (runs, size, calls) in figures.items():
        middle = statistics.median(runs)
        print(
            f"{kind:24} {middle:7.2f} {min(runs):6.2f}-{max(runs):<6.2f} "
            f"{middle / trivial:9.1f} {size / 1024:6.1f} KB {calls:9,.0f}"
        )


def main(quick: bool = False) -> None:
    rounds, repeats, total = (20, 3, 20_000) if quick else (60, 5, TOTAL)
    report(run(rounds, repeats, total), rounds, repeats, total)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--deployments", type=int, default=TOTAL)
    parser.add_argument("--profile", help="a page kind to profile (cProfile) before timing")
    parser.add_argument("--postgresql", action="store_true", help="run on PostgreSQL")
    options = parser.parse_args()
    figures = run(
        options.rounds, options.repeats, options.deployments, options.profile, options.postgresql
    )
    database = "PostgreSQL" if options.postgresql else "SQLite"
    report(figures, options.rounds, options.repeats, options.deployments, database)
