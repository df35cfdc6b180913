"""Leases in Chromium: choosing a duration on the launch form and reading when it would end,
the countdown in My deployments, an extend refused with its reason, then allowed near the end.
Time passes through the portal's clock (the live server runs in this process)."""

import shutil
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from app.clock import use_clock
from tests.e2e.conftest import log_in

SERVICE_TOKEN = "tok-portal-service"
PASSWORD = "correct horse battery"


class Clock:
    def __init__(self):
        self.offset = timedelta(0)

    def __call__(self):
        return datetime.now(UTC) + self.offset


@pytest.fixture
def clock():
    moved = Clock()
    with use_clock(moved):
        yield moved


@pytest.fixture
def portal(make_app, starter_catalogue_db, tmp_path, orchestrator_emulator, live_server_for):
    from app.auth.cli import create_local_user
    from app.extensions import db
    from app.leases.editing import parse_field, set_policy

    orchestrator_emulator.add_token(
        SERVICE_TOKEN, "portal-service", "https://iam.test/", groups=["physics"]
    )
    target = tmp_path / "leases-browser.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = make_app(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}",
        ORCHESTRATOR_URL=orchestrator_emulator.url,
        ORCHESTRATOR_SERVICE_IDENTITY={"token": SERVICE_TOKEN},
        DEPLOYMENTS_POLL_SECONDS=1,
        LAUNCHES_PER_MINUTE=0,
        # Days pass in this test; the login should not end with them.
        SESSION_LIFETIME_MINUTES=30 * 24 * 60,
        SESSION_ABSOLUTE_LIFETIME_HOURS=30 * 24,
    )
    with app.app_context():
        user = create_local_user("ada", PASSWORD, display_name="Ada Lovelace")
        user.groups = ["physics"]
        policy = {
            "default": "8h",
            "max_initial": "3d",
            "extend_step": "1d",
            "max_extends": "1",
            "cap": "14d",
            "extend_window": "1d",
            "warn": "2h",
        }
        changes = {key: parse_field(key, text) for key, text in policy.items()}
        set_policy(None, "jupyter-vm", None, changes, "browser test")
        db.session.commit()
    server = live_server_for(app)
    app.config["PORTAL_BASE_URL"] = server.url
    return server


def test_a_researcher_chooses_a_duration_watches_the_countdown_and_extends_near_the_end(
    portal, orchestrator_emulator, page, shot, clock
):
    log_in(page, portal.url, "ada", PASSWORD)
    page.goto(portal.url + "/catalogue/jupyter-vm/")
    duration = page.get_by_label("Duration")
    expect(duration).to_have_value("8h")
    offer = page.locator("#lease-offer")
    expect(offer).to_contain_text(" UTC once ready; can be extended up to")
    expect(offer.locator("time")).to_have_count(2)

    duration.fill("5d")
    expect(offer).to_contain_text("Choose 3 days or less")
    duration.fill("2d")
    expect(offer).to_contain_text("Ends about")
    expect(offer).to_contain_text(" UTC")
    shot("lease-launch-duration", full_page=False)
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_role("heading", name="Status")).to_be_visible()
    expect(page.locator("#lease")).to_contain_text("It will run for 2 days once it is ready")

    [held] = orchestrator_emulator.deployments()
    orchestrator_emulator.set_status(held["uuid"], "CREATE_COMPLETE")  # calls the portal back
    page.goto(portal.url + "/deployments/")
    row = page.locator(".deployment-table tbody tr").first
    expect(row.locator(".status-badge")).to_have_text("Ready", timeout=15_000)
    page.reload()
    left = page.locator(".lease-left [data-countdown]").first
    expect(left).to_contain_text(" left")
    expect(left).to_have_class("badge text-bg-secondary")
    shot("lease-countdown")

    row.locator(".deployment-name a").click()
    lease = page.locator("#lease")
    expect(lease.get_by_role("button", name="Extend")).to_be_disabled()
    expect(lease).to_contain_text("Not now: extends open 1 day before the end.")
    end = lease.locator("time").first
    assert "T" in end.get_attribute("datetime") and end.get_attribute("datetime").endswith("Z")
    shot("lease-extend-refused", full_page=False)

    clock.offset = timedelta(days=1, hours=23)  # an hour left: inside the window, warned
    page.reload()
    expect(lease.locator("[data-countdown]")).to_have_class("badge fs-6 text-bg-warning")
    lease.get_by_role("button", name="Extend").click()
    expect(page.locator(".alert-success")).to_contain_text("Extended: it now ends")
    expect(lease.locator("[data-countdown]")).to_contain_text("1 day 0 hours left")
    expect(lease).to_contain_text("Not now: no extends left.")
    expect(lease).not_to_contain_text("can be extended up to")
    expect(page.locator(".timeline-step").filter(has_text="Lease extended")).to_have_count(1)
    shot("lease-extended")


def test_the_open_page_shows_the_lease_counting_down_once_the_deployment_turns_ready(
    portal, orchestrator_emulator, page, shot
):
    log_in(page, portal.url, "ada", PASSWORD)
    page.goto(portal.url + "/catalogue/jupyter-vm/")
    page.get_by_role("button", name="Launch").click()
    lease = page.locator("#lease")
    expect(lease).to_contain_text("It will run for 8 hours once it is ready")

    [held] = orchestrator_emulator.deployments()
    orchestrator_emulator.set_status(held["uuid"], "CREATE_COMPLETE")  # calls the portal back
    # No reload: the page's own poll of the status brings the lease along.
    expect(page.locator("#deployment-status .status-badge")).to_have_text("Ready", timeout=15_000)
    expect(lease.locator("[data-countdown]")).to_contain_text(" left")
    expect(lease).not_to_contain_text("once it is ready")
    expect(lease.locator("time").first).to_contain_text(":")
    shot("lease-started-on-the-open-page", full_page=False)
