"""Capacity tests: the emulated sources served over real HTTP on loopback, and portals
configured to read them."""

from __future__ import annotations

import pytest

from app.capacity import operations
from app.capacity.emulators.server import CapacityEmulatorServer, create_emulator
from app.capacity.emulators.world import EmulatedSite, World

# How long a client waits for an emulated source that hangs: short, so a timeout costs little.
# Long enough for a loaded machine to answer; the tests of a source that hangs ask for HANG.
TIMEOUT = 10.0
HANG = 0.5


def two_sites() -> list[EmulatedSite]:
    return [
        EmulatedSite(
            name="RECAS-BARI",
            region="bari",
            cloud_id="recas",
            cores=(256, 96),
            ram_gib=(2048, 640),
            disk_gib=(20000, 6000),
            instances=(100, 30),
            gpus={"NVIDIA A100-PCIE-40GB": (8, 4), "Tesla T4": (4, 4)},
        ),
        EmulatedSite(
            name="CLOUD-VENETO",
            region="padova",
            cloud_id="veneto",
            cores=(64, 20),
            ram_gib=(256, 80),
            disk_gib=(2000, 500),
            instances=(20, 6),
            gpus={},
        ),
    ]


@pytest.fixture
def world():
    return World(two_sites())


@pytest.fixture
def emulator(world):
    server = CapacityEmulatorServer(create_emulator(world)).start()
    yield server
    world.faults.release.set()
    server.stop()


def sources(url: str, *kinds: str, timeout: float = TIMEOUT) -> list[dict]:
    """CAPACITY_SOURCES for the emulator at ``url``: fedreg, im, cluster-stats of RECAS-BARI."""
    every = {
        "fedreg": {"kind": "fedreg", "url": f"{url}/fedreg", "timeout": timeout},
        "im": {"kind": "im", "url": f"{url}/im", "timeout": timeout},
        "cluster-stats": {
            "kind": "cluster-stats",
            "url": f"{url}/papi/RECAS-BARI",
            "site": "RECAS-BARI",
            "timeout": timeout,
        },
    }
    return [every[kind] for kind in kinds]


@pytest.fixture
def capacity_app(make_app, emulator):
    """A portal reading the emulator's sources ``kinds``, with both sites known."""

    def factory(*kinds: str, backend: str = "paas", timeout: float = TIMEOUT, **settings):
        app = make_app(
            **{
                "CAPACITY_SOURCES": sources(emulator.url, *kinds, timeout=timeout),
                "ORCHESTRATOR_SERVICE_IDENTITY": {"token": "service-token"},
                "IM_URL": emulator.url + "/im",
                "IM_CLOUDS": "id = recas; type = OpenStack\nid = veneto; type = OpenStack",
                "IM_TIMEOUT": timeout,
                "IM_USERNAME": "portal",
                "IM_PASSWORD": "secret",
                **settings,
            }
        )
        with app.app_context():
            operations.add_site("RECAS-BARI", backend, "recas" if backend == "im" else "")
            operations.add_site("CLOUD-VENETO", backend, "veneto" if backend == "im" else "")
        return app

    return factory
