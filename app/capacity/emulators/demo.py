"""The world of ``make run``'s demo: two sites, one with free A100s.

RECAS-BARI's GPU cluster publishes its statistics (PAPI's shape): four of its eight A100s
are free. DEMO-SITE, the site the demo orchestrator places everything at, is known through
the Federation Registry: its group's share has room for cores and memory, and its two T4s
are both taken.
"""

from __future__ import annotations

from app.capacity.emulators.world import EmulatedSite, World

# Two minutes behind, as a feeder or a statistics thread would be.
DEMO_LAG_SECONDS = 120


def demo_world() -> World:
    return World(
        [
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
                name="DEMO-SITE",
                region="demo-region",
                cloud_id="demo",
                cores=(64, 20),
                ram_gib=(256, 80),
                disk_gib=(2000, 500),
                instances=(20, 6),
                gpus={"Tesla T4": (2, 2)},
            ),
        ],
        lag_seconds=DEMO_LAG_SECONDS,
    )
