"""Sites with a stored snapshot of what they have free, written straight to the database (the
capacity sources and their refresh are tested apart)."""

from datetime import timedelta

from app.capacity.models import CapacitySnapshot, Site
from app.clock import utcnow
from app.extensions import db


def add_site(
    app,
    name: str,
    *,
    backend: str = "paas",
    placement: str = "",
    minutes_old: float = 2,
    **free,
) -> None:
    """Store site ``name`` with a snapshot read ``minutes_old`` minutes ago; ``free`` overrides
    the numbers (64 cores, 256 GiB, 2 TB, 20 machines, 2 A100 and 4 T4 free)."""
    numbers = {
        "source": "cluster-stats",
        "maintenance": False,
        "cores": 64,
        "memory_gib": 256.0,
        "disk_gib": 2000.0,
        "instances": 20,
        "gpus": {"A100": 2, "T4": 4},
        "gpus_known": True,
        "problem": None,
    }
    numbers.update(free)
    with app.app_context():
        site = Site(name=name, backend=backend, placement=placement)
        site.snapshot = CapacitySnapshot(
            read_at=utcnow() - timedelta(minutes=minutes_old), **numbers
        )
        db.session.add(site)
        db.session.commit()


def two_sites(app) -> None:
    """RECAS-BARI with room (its SLA known to the emulator), CLOUD-CNAF with no core free."""
    add_site(app, "RECAS-BARI", placement="sla-recas-bari", minutes_old=3)
    add_site(app, "CLOUD-CNAF", placement="sla-cloud-cnaf", cores=0, gpus={}, minutes_old=5)
