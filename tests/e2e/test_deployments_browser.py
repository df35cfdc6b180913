"""A researcher's whole journey with a deployment, in Chromium, against the orchestrator emulator
served as a real HTTP server: launch Jupyter with a generated password, watch it become ready
without reloading, reveal the password, find the link, delete it. Laptop and phone widths."""

import shutil

import pytest
from playwright.sync_api import expect

from app.sync.passes import sync_once
from tests.e2e.conftest import log_in

SERVICE_TOKEN = "tok-portal-service"
PASSWORD = "correct horse battery"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def portal(make_app, starter_catalogue_db, tmp_path, orchestrator_emulator, live_server_for):
    """The starter catalogue served live, launching on the emulator through a service identity;
    the emulator's callbacks reach the live server."""
    from app.auth.cli import create_local_user
    from app.extensions import db

    orchestrator_emulator.add_token(
        SERVICE_TOKEN, "portal-service", "https://iam.test/", groups=["physics"]
    )
    target = tmp_path / "deployments-browser.sqlite"
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
        user.groups = ["physics"]
        db.session.commit()
    server = live_server_for(app)
    app.config["PORTAL_BASE_URL"] = server.url
    return server


def only_deployment(emulator) -> dict:
    [held] = emulator.deployments()
    return held


def fits_the_width(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_researcher_launches_jupyter_follows_it_to_ready_reveals_the_password_and_deletes_it(
    portal, orchestrator_emulator, page, shot, browser
):
    emulator = orchestrator_emulator
    log_in(page, portal.url, "ada", PASSWORD)

    page.goto(portal.url + "/catalogue/jupyter-vm/")
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_role("heading", name="Status")).to_be_visible()
    held = only_deployment(emulator)
    sent = emulator.submitted(held["uuid"])
    generated = sent["parameters"]["jupyter_password"]
    assert generated and sent["userGroup"] == "physics"

    page.goto(portal.url + "/deployments/")
    row = page.locator(".deployment-table tbody tr").first
    expect(row.locator(".status-badge")).to_have_text("Creating")
    expect(row.locator(".spinner-border")).to_be_visible()
    page.evaluate("window.stillTheSamePage = true")
    shot("deployments-in-progress")

    emulator.set_status(held["uuid"], "CREATE_COMPLETE")  # the emulator calls the portal back

    expect(row.locator(".status-badge")).to_have_text("Ready", timeout=15_000)
    assert page.evaluate("window.stillTheSamePage") is True  # no reload happened
    endpoint = only_deployment(emulator)["outputs"]["jupyter_endpoint"]
    open_link = row.get_by_role("link", name="Open JupyterHub")
    expect(open_link).to_have_attribute("href", endpoint)
    assert endpoint.startswith(("https://", "http://"))
    assert fits_the_width(page)
    shot("deployments-ready")

    row.locator(".deployment-name a").click()
    expect(page.get_by_role("link", name="Open JupyterHub")).to_have_attribute("href", endpoint)
    expect(page.get_by_text(generated)).to_have_count(0)
    page.get_by_role("button", name="Show password").click()
    expect(page.locator(".secret-value")).to_have_text(generated)
    expect(page.locator(".timeline-step")).not_to_have_count(0)
    shot("deployment-ready-detail")

    phone = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    log_in(phone, portal.url, "ada", PASSWORD)
    phone.goto(portal.url + "/deployments/")
    expect(phone.get_by_role("link", name="Open JupyterHub")).to_be_visible()
    # Below the usage panel on a phone: scrolled to, it is whole on the screen (not off its side).
    delete = phone.get_by_role("link", name="Delete")
    delete.scroll_into_view_if_needed()
    expect(delete).to_be_in_viewport(ratio=0.5)
    assert fits_the_width(phone)
    shot("deployments-phone", target=phone)
    phone.locator(".deployment-name a").first.click()
    expect(phone.get_by_role("heading", name="Timeline")).to_be_attached()
    assert fits_the_width(phone)
    shot("deployment-detail-phone", target=phone)
    phone.context.close()

    page.get_by_role("link", name="Delete…").click()
    expect(page.get_by_role("heading", name="Delete")).to_contain_text("?")
    shot("deployment-delete-confirmation")
    page.get_by_role("button", name="Delete it").click()
    row = page.locator(".deployment-table tbody tr").first
    expect(row.locator(".status-badge")).to_have_text("Deleting")
    usage = page.locator("#usage-summary")
    expect(usage).to_contain_text("1 deployment")
    page.evaluate("window.stillTheSamePage = true")

    emulator.set_status(held["uuid"], "DELETE_COMPLETE")
    # The orchestrator drops a deleted deployment without calling back: the sync worker's
    # next pass finds it gone. The page, polling, shows that without a reload.
    with portal.app.app_context():
        sync_once()

    # They had one: the list says there is none now, and the usage panel frees it with it.
    expect(page.get_by_text("No deployments at the moment.")).to_be_visible(timeout=15_000)
    expect(usage).to_contain_text("0 deployments")
    expect(
        page.get_by_role("link", name="Launch an application from the catalogue")
    ).to_be_visible()
    shot("deployments-after-delete")
    assert page.evaluate("window.stillTheSamePage") is True
    assert [r["method"] for r in emulator.requests()].count("POST") == 1
