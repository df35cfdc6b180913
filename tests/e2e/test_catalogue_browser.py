import re

import pytest
from playwright.sync_api import expect

from app.sync.passes import sync_once
from tests.e2e.conftest import log_in


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def researcher(people):
    people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    return "ada"


def test_a_researcher_searches_filters_and_opens_a_launch_form(live_server, page, shot, researcher):
    log_in(page, live_server.url, "ada", "correct horse battery")
    expect(page.get_by_role("heading", name="Catalogue")).to_be_visible()
    expect(page.locator(".app-card")).to_have_count(6)
    shot("catalogue")
    # Descriptions are cut at four lines on every card: no fifth line shows through.
    lines = page.locator(".app-description").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height"
        " / parseFloat(getComputedStyle(e).lineHeight))"
    )
    assert lines and all(count <= 4.05 for count in lines), lines

    page.get_by_label("Search the catalogue").fill("kubernetes")
    expect(page.locator(".app-card")).to_have_count(1)
    shot("catalogue-search")
    page.get_by_label("Search the catalogue").fill("")
    expect(page.locator(".app-card")).to_have_count(6)

    page.get_by_role("link", name="gpu", exact=True).click()
    expect(page.locator(".app-card").first).to_be_visible()
    assert page.locator(".app-card").count() < 6

    page.get_by_role("link", name="All", exact=True).click()
    page.get_by_role("link", name="Jupyter on a virtual machine").click()
    expect(page.get_by_role("button", name="Launch")).to_be_visible()
    expect(page.get_by_text("What will be requested")).to_be_visible()
    shot("launch-jupyter-vm")


def test_a_preset_fills_several_fields_and_updates_the_summary(live_server, page, shot, researcher):
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/catalogue/jupyter-ml-gpu/")
    before = page.locator(".resource-totals").inner_text()
    presets = page.locator(".preset-button")
    expect(presets.first).to_be_visible()
    presets.last.click()
    expect(page.locator(".resource-totals")).not_to_have_text(before)
    shot("launch-after-preset")


def test_invalid_values_are_marked_beside_their_fields_on_a_phone(
    live_server, browser, shot, researcher
):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "ada", "correct horse battery")
    phone.goto(live_server.url + "/catalogue/vm/")
    phone.get_by_role("button", name="Launch").click()
    expect(phone.get_by_text("Some values need your attention")).to_be_visible()
    expect(phone.locator(".is-invalid").first).to_be_visible()
    shot("launch-errors-phone", target=phone)
    context.close()


def test_a_researcher_launches_a_notebook_and_follows_it_to_its_url(
    make_app, starter_catalogue_db, tmp_path, people_for, live_server_for, page, shot
):
    import shutil

    target = tmp_path / "launch.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = make_app(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        DEPLOYMENTS_SYNC_INTERVAL_SECONDS=0,
    )
    people_for(app, app.test_client()).create("ada", "correct horse battery")
    server = live_server_for(app)
    log_in(page, server.url, "ada", "correct horse battery")
    page.goto(server.url + "/catalogue/jupyter-vm/")
    page.get_by_role("button", name="Generate").click()
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_text("is being launched")).to_be_visible()
    shot("deployment-launched")
    # Pages never ask the orchestrator: the sync worker does, and the open page follows.
    with app.app_context():
        for _ in range(3):
            sync_once()
    expect(page.get_by_role("link", name="Jupyter")).to_be_visible(timeout=20_000)
    shot("deployment-ready")
    page.get_by_role("navigation", name="Main navigation").get_by_role(
        "link", name="My deployments"
    ).click()
    expect(
        page.get_by_role("link", name=re.compile(r"^Jupyter on a virtual machine \w{4}$")).first
    ).to_be_visible()
    shot("my-deployments")

    # The values used are offered again next time, the password excepted.
    page.goto(server.url + "/catalogue/jupyter-vm/")
    expect(page.get_by_text("Filled in with the values you used last time.")).to_be_visible()
