"""A batch job that runs once holds nothing once it has finished for good: a person with a
one-GPU limit launches a job, it succeeds (or fails), and they launch the next one without
deleting it; no lease starts for it. A repeating job keeps holding between its runs."""

from pathlib import Path

import pytest

from app.catalogue.operations import publish, save_revision
from app.extensions import db
from app.leases.models import Lease
from app.quotas.errors import QuotaExceeded
from tests.deployments.conftest import (  # noqa: F401  (fixtures)
    closed_port_url,
    emulated,
    emulated_settings,
)
from tests.leases.conftest import Leases
from tests.quotas.conftest import Quotas

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"


@pytest.fixture
def one_gpu(emulated):  # noqa: F811  (the imported fixture)
    with emulated.app.app_context():
        save_revision(
            "chronos-gpu-job",
            (CATALOGUE / "chronos-gpu-job.yaml").read_text(),
            (CATALOGUE / "chronos-gpu-job.portal.yaml").read_text(),
            "test",
            create=True,
        )
        publish("chronos-gpu-job", "test")
    # Leases run out after a day on this site: a job must never start one.
    Leases(emulated).policy(default="1d", max_initial="2d", failed_cleanup="1h")
    user = emulated.user("ada", groups=("physics",))
    Quotas(emulated.app).limit("user", user, gpus="1")
    return emulated, user


def launch_job(portal, user, schedule="R1//P1D"):
    """Launch a one-GPU job choosing a lease of a day, as the launch form does."""
    return Leases(portal).launch(
        user,
        24 * 60,
        slug="chronos-gpu-job",
        parameters={"command": "python train.py", "schedule": schedule, "num_gpus": 1},
    )


def lease_of(portal, deployment_id):
    with portal.app.app_context():
        return db.session.get(Lease, deployment_id)


@pytest.mark.parametrize("ending", ["ready", "failed"])
def test_a_job_run_once_that_finished_lets_its_owner_launch_again(one_gpu, ending):
    portal, user = one_gpu
    first = launch_job(portal, user)
    with pytest.raises(QuotaExceeded):
        launch_job(portal, user)  # while it waits to run, it holds its GPU

    portal.emulator.set_status(portal.row(first).uuid, ending)
    portal.sync()

    assert portal.row(first).status == ending
    second = launch_job(portal, user)
    assert second != first
    lease = lease_of(portal, first)
    assert lease is None or (lease.state == "done" and lease.ends_at is None)
    kinds = {event.kind for event in portal.row(first).events}
    assert not kinds & {"lease-chosen", "lease-expired", "failed-cleanup"}


def test_a_repeating_job_keeps_holding_between_its_runs(one_gpu):
    portal, user = one_gpu
    daily = launch_job(portal, user, schedule="R5//P1D")
    portal.emulator.set_status(portal.row(daily).uuid, "CREATE_COMPLETE")
    portal.sync()

    with pytest.raises(QuotaExceeded):
        launch_job(portal, user)


def test_the_launch_form_asks_no_duration_of_a_job_that_runs_once(one_gpu):
    portal, _user = one_gpu
    from tests.launch.test_launch_form import login

    portal.user("grace", groups=("gpu-users",))  # whom the job's template is shown to
    client = login(portal, "grace")
    page = client.get("/catalogue/chronos-gpu-job/").get_data(as_text=True)
    assert "This job runs once: it ends when its run does" in page
    assert 'name="lease_duration"' not in page and "once ready" not in page
    offer = client.get("/leases/offer?template=chronos-gpu-job&lease_duration=2h")
    assert "This job runs once" in offer.get_data(as_text=True)
    # A service under the same policy is still offered a duration.
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    assert 'name="lease_duration"' in page and "once ready" in page
