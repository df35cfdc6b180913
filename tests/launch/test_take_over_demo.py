"""Where each person calls the orchestrator as themselves (the demo orchestrator, which
``make run`` uses), only a deployment's maker may act on it there. Taken over, it is still
asked about in its maker's name: the new owner reads its log and deletes it, the lease's end
deletes it, and the sync worker goes on following it; it is the new owner's all the same."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.auth.cli import create_local_user
from app.auth.models import User
from app.auth.operations import set_active
from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.emulator.demo import demo_emulator
from app.catalogue.loader import catalogue
from app.clock import use_clock
from app.deployments import operations, sharing
from app.deployments.models import Deployment, DeploymentListing
from app.extensions import db
from app.launch import taking_over
from app.launch.request import LaunchRequest
from app.launch.workflow import launch
from app.leases.editing import parse_field, set_policy
from app.leases.expiry import expire_once
from app.sync.passes import sync_once
from app.sync.polling import poll_due
from tests.deployments.conftest import PARAMETERS, save_and_publish


class Demo:
    """Olga launches on the demo orchestrator and shares it with Carla as co-owner; then
    Olga's account is disabled."""

    def __init__(self, app):
        self.app = app
        with app.app_context():
            self.olga = self._person("olga")
            self.carla = self._person("carla")

    def _person(self, name: str) -> int:
        user = create_local_user(name, "correct horse battery")
        user.groups = ["physics"]
        db.session.commit()
        return user.id

    def launch(self) -> int:
        with self.app.app_context():
            olga = db.session.get(User, self.olga)
            entry = catalogue().get("test-notebook")
            deployment = launch(LaunchRequest(olga, entry, dict(PARAMETERS)))
            sharing.share(olga, deployment, "user", "carla", "co-owner")
            return deployment.id

    def disable_olga(self) -> None:
        with self.app.app_context():
            set_active(db.session.get(User, self.olga), False)
            db.session.commit()

    def take_over(self, deployment_id: int) -> None:
        with self.app.app_context():
            taking_over.take_over(db.session.get(User, self.carla), deployment_id)

    def row(self, deployment_id: int) -> Deployment:
        with self.app.app_context():
            row = db.session.get(Deployment, deployment_id)
            db.session.expunge(row)
            return row

    def at_orchestrator(self, deployment_id: int) -> dict:
        """The demo orchestrator's own record of it."""
        stored = emulator_of(demo_emulator(self.app)).store.get(self.row(deployment_id).uuid)
        return {"status": stored.record["status"], "maker": stored.subject}

    def sync_until(self, deployment_id: int, status: str) -> None:
        """Sync passes (a listing of each identity, then the polls due), with a poll of what
        the listing refreshed, until its row says ``status`` (the demo moves on at each poll)."""
        for _turn in range(6):
            with self.app.app_context():
                sync_once()
                poll_due()
            if self.row(deployment_id).status == status:
                return
        raise AssertionError(f"still {self.row(deployment_id).status}, not {status}")


POLICY = {"default": "3h", "warn": "1h", "grace": "30m"}


class Later:
    """Real time, ``hours`` on."""

    hours = 0.0

    def __call__(self) -> datetime:
        return datetime.now(UTC) + timedelta(hours=self.hours)


@pytest.fixture
def demo(make_app):
    """The demo orchestrator (ORCHESTRATOR_URL = "demo"), moving on at each poll, and a sync
    worker asking at every pass."""
    portal = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        DEPLOYMENTS_RECHECK_SECONDS=0,
        DEPLOYMENTS_SYNC_INTERVAL_SECONDS=0,
        DEPLOYMENTS_SYNC_LIST_SECONDS=0,
    )
    save_and_publish(portal)
    return Demo(portal)


def test_taken_over_on_the_demo_it_is_followed_read_and_deleted_in_its_makers_name(demo):
    deployment_id = demo.launch()
    demo.disable_olga()
    demo.take_over(deployment_id)
    row = demo.row(deployment_id)
    assert (row.user_id, row.backend_holder_id) == (demo.carla, demo.olga)
    assert demo.at_orchestrator(deployment_id)["maker"] == "olga"

    # The sync worker follows it in Olga's name: it gets ready, and never vanishes.
    demo.sync_until(deployment_id, "ready")
    with demo.app.app_context():
        listings = set(db.session.scalars(db.select(DeploymentListing.identity)))
    assert f"user:{demo.olga}" in listings
    demo.sync_until(deployment_id, "ready")

    with demo.app.app_context():
        carla = db.session.get(User, demo.carla)
        deployment = db.session.get(Deployment, deployment_id)
        assert operations.fetch_log(carla, deployment).text is not None
        operations.delete(carla, deployment)
    assert demo.row(deployment_id).status == "deleting"
    assert demo.at_orchestrator(deployment_id)["status"] == "DELETE_IN_PROGRESS"
    demo.sync_until(deployment_id, "deleted")
    assert demo.row(deployment_id).user_id == demo.carla


def test_taken_over_on_the_demo_it_is_deleted_at_its_leases_end(demo):
    with demo.app.app_context():
        changes = {key: parse_field(key, text) for key, text in POLICY.items()}
        set_policy(None, None, None, changes, "test")
    deployment_id = demo.launch()
    demo.sync_until(deployment_id, "ready")
    demo.disable_olga()
    demo.take_over(deployment_id)

    clock = Later()
    with use_clock(clock), demo.app.app_context():
        clock.hours = 3.1
        assert expire_once().expired == 1
        clock.hours = 3.7  # past the grace
        assert expire_once().deleted == 1
    assert demo.at_orchestrator(deployment_id)["status"] == "DELETE_IN_PROGRESS"
    row = demo.row(deployment_id)
    assert (row.user_id, row.status) == (demo.carla, "deleting")
