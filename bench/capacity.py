"""What reading the capacity snapshot costs a page, and what one refresh pass costs.

Figures printed (SQLite, in a temporary folder): ``snapshot.current()`` with 50 and 500 known
sites (the launch form's verdict reads it once per render; its budget is a few milliseconds),
and one refresh pass reading two emulated sources over loopback HTTP (a Federation Registry
describing 50 sites, and one cluster's statistics).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.catalogue import CONFIG


def _app(instance: Path, **settings):
    from app import create_app
    from app.extensions import db

    url = f"sqlite:///{instance}/bench.sqlite"
    app = create_app({**CONFIG, "SQLALCHEMY_DATABASE_URI": url, **settings}, str(instance))
    with app.app_context():
        db.create_all()
    return app


def _sites(count: int):
    from app.capacity.emulators.world import EmulatedSite

    return [
        EmulatedSite(
            name=f"SITE-{n:03d}",
            cores=(256, 100),
            ram_gib=(1024, 300),
            disk_gib=(10000, 2000),
            instances=(100, 20),
            gpus={"NVIDIA A100-PCIE-40GB": (8, n % 9)},
        )
        for n in range(count)
    ]


def _timed(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main(quick: bool = False) -> None:
    from app.capacity import snapshot
    from app.capacity.emulators.server import CapacityEmulatorServer, create_emulator
    from app.capacity.emulators.world import World
    from app.capacity.models import Site
    from app.capacity.refresh import refresh_due
    from app.extensions import db

    for count in (50, 500):
        world = World(_sites(count))
        server = CapacityEmulatorServer(create_emulator(world, open_to_anonymous=True)).start()
        sources = [
            {"kind": "cluster-stats", "url": f"{server.url}/papi/SITE-000", "site": "SITE-000"},
            {"kind": "fedreg", "url": f"{server.url}/fedreg"},
        ]
        with tempfile.TemporaryDirectory() as folder:
            app = _app(Path(folder), CAPACITY_SOURCES=sources)
            with app.app_context():
                db.session.add_all(
                    Site(name=s.name, backend="paas") for s in world.seen()[1].values()
                )
                db.session.commit()
                refresh = _timed(lambda: refresh_due(everything=True), 3 if quick else 10)
                read = _timed(snapshot.current, 50 if quick else 500)
                db.session.remove()
                db.engine.dispose()
        server.stop()
        print(
            f"capacity, {count} sites: snapshot.current() {read:.2f} ms (median); "
            f"refresh pass of 2 sources {refresh:.0f} ms (median)"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
