"""The whole launch path against the orchestrator emulator served over HTTP: the reservation
is taken before the create request and released when the orchestrator refuses, the create
fails, or the deployment is deleted."""

import pytest

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.operations import LaunchError, delete
from app.extensions import db
from app.quotas.errors import QuotaExceeded
from tests.deployments.conftest import (  # noqa: F401  (fixtures)
    closed_port_url,
    emulated,
    emulated_settings,
)
from tests.quotas.conftest import Quotas


@pytest.fixture
def limited(emulated):  # noqa: F811  (the imported fixture)
    user = emulated.user("ada", groups=("physics",))
    Quotas(emulated.app).limit("user", user, cores="2")
    return emulated, user


def status_of(portal, deployment_id):
    return portal.row(deployment_id).status


def test_a_second_launch_over_the_limit_is_refused_before_reaching_the_orchestrator(limited):
    portal, user = limited
    first = portal.launch(user)
    with pytest.raises(
        QuotaExceeded, match="It needs 2 cores, but deployment .* already holds 2 cores"
    ):
        portal.launch(user)
    assert portal.posts() == 1
    assert portal.row(first).charge["cores"] == 2


def test_the_reservation_is_released_when_the_orchestrator_refuses(limited):
    portal, user = limited
    portal.emulator.set_faults(error_rate=1.0, error_status=400, paths=["POST /deployments"])
    with pytest.raises(LaunchError):
        portal.launch(user)
    portal.emulator.clear_faults()
    with portal.app.app_context():
        [refused] = db.session.scalars(db.select(Deployment)).all()
        assert refused.status == "NOT_LAUNCHED"
    assert status_of(portal, portal.launch(user)) not in ("NOT_LAUNCHED", "UNCONFIRMED")


def test_the_reservation_is_released_when_the_create_fails(limited):
    portal, user = limited
    first = portal.launch(user)
    portal.emulator.set_status(portal.row(first).uuid, "CREATE_FAILED", reason="No room")
    portal.sync()
    assert status_of(portal, first) == "failed"
    assert portal.launch(user) != first


@pytest.mark.parametrize("placed", [True, False], ids=["at-a-site", "before-a-site"])
def test_the_reservation_is_released_when_the_deployment_is_deleted(limited, placed):
    portal, user = limited
    first = portal.launch(user)
    uuid = portal.row(first).uuid
    if placed:
        portal.emulator.set_status(uuid, "CREATE_COMPLETE")
    with portal.app.app_context():
        delete(db.session.get(User, user), db.session.get(Deployment, first))
    if placed:
        portal.emulator.set_status(uuid, "DELETE_COMPLETE")
    # else the orchestrator dropped it at once: nothing had been built anywhere
    portal.sync()
    assert portal.launch(user) != first
