"""Leases against the emulator over HTTP, with a clock the tests move instead of waiting."""

from datetime import UTC, datetime, timedelta

import pytest

from app.clock import use_clock
from app.extensions import db
from app.launch.request import LeaseChoice
from app.leases.editing import parse_field, set_policy
from app.leases.expiry import expire_once
from app.leases.models import Lease
from tests.deployments.conftest import (  # noqa: F401 - fixtures shared with deployments
    app,
    closed_port_url,
    emulated,
    emulated_settings,
    launch_as,
    make_deployment,
)


class MovableClock:
    """Real time moved on by the test: ``clock.move(hours=2)``."""

    def __init__(self):
        self.offset = timedelta(0)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def move(self, **amount) -> None:
        self.offset += timedelta(**amount)


@pytest.fixture
def clock():
    moved = MovableClock()
    with use_clock(moved):
        yield moved


class Leases:
    """Helpers on an ``emulated`` portal: set policies, launch with a duration, run passes."""

    def __init__(self, portal):
        self.emulated, self.app = portal, portal.app

    def policy(self, template=None, group=None, reason="test", **texts):
        with self.app.app_context():
            changes = {key: parse_field(key, text) for key, text in texts.items()}
            return set_policy(None, template, group, changes, reason)

    def launch(self, user_id: int, duration: int | None = None, **options) -> int:
        return self.emulated.launch(user_id, lease=LeaseChoice(duration), **options)

    def ready(self, deployment_id: int) -> None:
        """The orchestrator finishes creating it; the sync worker learns it."""
        uuid = self.emulated.row(deployment_id).uuid
        self.emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
        self.emulated.sync()

    def expire(self):
        with self.app.app_context():
            return expire_once()

    def lease(self, deployment_id: int) -> Lease | None:
        with self.app.app_context():
            lease = db.session.get(Lease, deployment_id)
            if lease is not None:
                db.session.expunge(lease)
            return lease

    def events(self, deployment_id: int, kind_prefix=("lease-", "failed-cleanup")):
        return [
            (e.kind, e.source, e.details)
            for e in self.emulated.row(deployment_id).events
            if e.kind and e.kind.startswith(kind_prefix)
        ]


@pytest.fixture
def leases(emulated):  # noqa: F811 - the fixture imported above
    return Leases(emulated)
