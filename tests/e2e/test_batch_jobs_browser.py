"""A batch job reads as a job from launch to result, in Chromium against the orchestrator
emulator served over HTTP: its schedule chosen with form controls, then queued or running,
succeeded, failed with the orchestrator's reason, or scheduled with its next run; and its
delete speaks of the batch system, not of virtual machines."""

import shutil
from datetime import timedelta

import pytest
import requests
from playwright.sync_api import expect

from app.clock import utcnow
from tests.e2e.conftest import log_in

SERVICE_TOKEN = "tok-portal-service"
PASSWORD = "correct horse battery"


@pytest.fixture
def portal(make_app, starter_catalogue_db, tmp_path, orchestrator_emulator, live_server_for):
    """The starter catalogue served live for a member of gpu-users; the emulator completes a
    job after two looks at it and calls the live server back."""
    from app.auth.cli import create_local_user
    from app.extensions import db

    orchestrator_emulator.add_token(
        SERVICE_TOKEN, "portal-service", "https://iam.test/", groups=["gpu-users"]
    )
    orchestrator_emulator.configure(complete_after_polls=2)
    target = tmp_path / "jobs-browser.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = make_app(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}",
        ORCHESTRATOR_URL=orchestrator_emulator.url,
        ORCHESTRATOR_SERVICE_IDENTITY={"token": SERVICE_TOKEN},
        DEPLOYMENTS_POLL_SECONDS=1,
        LAUNCHES_PER_MINUTE=0,
    )
    with app.app_context():
        user = create_local_user("ada", PASSWORD, display_name="Ada Lovelace")
        user.groups = ["gpu-users"]
        db.session.commit()
    server = live_server_for(app)
    app.config["PORTAL_BASE_URL"] = server.url
    return server


def the_orchestrator_looks(emulator, times=2):
    """The orchestrator's own polls of Chronos, which move an emulated job on."""
    for held in emulator.deployments():
        for _ in range(times):
            requests.get(
                f"{emulator.url}/deployments/{held['uuid']}",
                headers={"Authorization": f"Bearer {SERVICE_TOKEN}"},
                timeout=10,
            )


def the_portal_checks(portal):
    """One pass of the sync worker, every deployment due now."""
    from app.deployments.models import Deployment
    from app.extensions import db
    from app.sync.passes import sync_once

    with portal.app.app_context():
        # Twice: a pass that lists the identity's deployments counts as their check, and a
        # listing does not move an emulated job on; the second pass asks about each one.
        for _ in range(2):
            db.session.execute(db.update(Deployment).values(next_check_at=utcnow()))
            db.session.commit()
            sync_once()


def launch_job(page, portal, name, command, schedule, shot=None):
    page.goto(portal.url + "/catalogue/chronos-gpu-job/")
    page.locator("#deployment_name").fill(name)
    page.get_by_label("Command", exact=True).fill(command)
    page.get_by_label("Runs", exact=True).select_option(schedule.pop("how"))
    for label, value in schedule.items():
        control = page.get_by_label(label, exact=True)
        control.select_option(value) if label == "Unit" else control.fill(value)
    if shot:
        shot()
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_role("heading", name="Status")).to_be_visible()


def test_a_batch_job_reads_as_a_job_from_launch_to_result(
    portal, orchestrator_emulator, page, shot
):
    emulator = orchestrator_emulator
    page.set_default_timeout(30_000)  # a shared machine: pages may be slow, never wrong
    log_in(page, portal.url, "ada", PASSWORD)

    # Once, now: queued or running, then succeeded.
    page.goto(portal.url + "/catalogue/chronos-gpu-job/")
    expect(page.get_by_label("Runs", exact=True)).to_have_value("now")
    shot("job-launch-form")
    launch_job(page, portal, "Training once", "python train.py --epochs 10", {"how": "now"})
    badge = page.locator("#deployment-status .status-badge")
    expect(badge).to_have_text("Queued")
    expect(page.locator(".job-schedule")).to_contain_text("Schedule: Once, now")
    [held] = emulator.deployments()
    assert emulator.submitted(held["uuid"])["parameters"]["schedule"] == "R1//P1D"
    the_portal_checks(portal)  # its status check finds the job placed at a site
    expect(badge).to_have_text("Running", timeout=15_000)
    shot("job-running")
    the_orchestrator_looks(emulator)
    expect(badge).to_have_text("Succeeded", timeout=15_000)  # the callback, no reload
    expect(page.locator("#deployment-status")).to_contain_text("It ran and succeeded.")
    expect(page.get_by_text("Virtual machines")).to_have_count(0)
    shot("job-succeeded")

    # A failing run: the orchestrator's reason, in its words.
    launch_job(page, portal, "Training that fails", "python train.py && exit 3", {"how": "now"})
    the_orchestrator_looks(emulator, times=3)
    expect(badge).to_have_text("Failed", timeout=15_000)
    expect(page.locator(".status-reason")).to_contain_text("failed to execute")
    expect(page.locator("#deployment-status")).to_contain_text("It ran and failed")
    shot("job-failed")

    # Every 6 hours, 10 times, from tomorrow at 02:00: scheduled, next run in words.
    tomorrow = (utcnow() + timedelta(days=1)).replace(hour=2, minute=0, second=0, microsecond=0)
    start = tomorrow.strftime("%Y-%m-%dT%H:%M")
    launch_job(
        page,
        portal,
        "Nightly training",
        "python train.py",
        {"how": "repeat", "Starting at (UTC)": start, "Every": "6", "Unit": "hours", "Times": "10"},
        shot=lambda: shot("job-launch-form-repeating"),
    )
    the_portal_checks(portal)
    when = f"{tomorrow:%b} {tomorrow.day}, {tomorrow:%Y}, 02:00 UTC"
    expect(badge).to_have_text("Scheduled")
    expect(page.locator("#deployment-status")).to_contain_text(f"Its first run is on {when}.")
    expect(page.locator(".job-schedule")).to_contain_text(f"Every 6 hours, 10 times, from {when}")
    iso = tomorrow.strftime("R10/%Y-%m-%dT%H:%M:00Z/PT6H")
    sent = [emulator.submitted(d["uuid"])["parameters"]["schedule"] for d in emulator.deployments()]
    assert iso in sent
    expect(page.get_by_text(iso)).to_have_count(0)  # the ISO text is for admins only
    shot("job-scheduled")

    page.goto(portal.url + "/deployments/")
    badges = page.locator(".deployment-table .status-badge")
    expect(badges).to_have_text(["Scheduled", "Failed", "Succeeded"])
    shot("jobs-list")

    page.locator(".deployment-name a", has_text="Nightly training").click()
    page.get_by_role("link", name="Delete…").click()
    confirmation = page.locator(".delete-confirmation")
    expect(confirmation).to_contain_text("removed from the batch system")
    expect(confirmation).not_to_contain_text("virtual machines")
    shot("job-delete-confirmation")
