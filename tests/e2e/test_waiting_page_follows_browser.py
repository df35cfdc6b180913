"""A waiting request's open page follows it into its start, in English and Italian at laptop
and phone width: the page asks (from the database) while the request waits, and once the
admission pass has started it the place in line goes, the status, the header's actions and the
backend's section come, all without a reload."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from app.catalogue.loader import catalogue
from app.clock import use_clock
from app.extensions import db
from app.launch import workflow
from app.launch.admission import admit_once
from app.launch.request import LaunchRequest
from tests.e2e.conftest import log_in
from tests.quotas.conftest import Quotas, charge

PASSWORD = "correct horse battery"


class Clock:
    """System time moved by ``offset``: the admission pass runs a little later."""

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
def app(make_app, catalogue_database_url):
    return make_app(SQLALCHEMY_DATABASE_URI=catalogue_database_url, DEPLOYMENTS_POLL_SECONDS=1)


@pytest.fixture
def waiting(app, people):
    """Ada's request for two GPUs, waiting for the one her old notebook holds; returns the
    ids of the request and of what holds the GPU."""
    user_id = people.create("ada", PASSWORD, display_name="Ada Lovelace")
    quotas = Quotas(app)
    quotas.limit("user", user_id, gpus="2", cores="64")
    holder = quotas.hold(user_id, charge(cores=8, gpus=1), name="old notebook")
    with app.app_context():
        from app.auth.models import User

        user = db.session.get(User, user_id)
        asked = LaunchRequest(
            user, catalogue().get("jupyter-ml-gpu"), {"num_gpus": 2}, name="Thesis analysis"
        )
        request = workflow.launch(asked, wait=True)
        assert request.status == "WAITING"
        return request.id, holder


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_a_waiting_requests_open_page_shows_it_started_without_a_reload(
    app, live_server, browser, shot, waiting, clock, language, width, height
):
    request_id, holder = waiting
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", PASSWORD)
    context.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{live_server.url}/deployments/{request_id}")
    header = page.locator("#deployment-header")
    expect(page.locator("#line-place")).to_be_visible()
    expect(page.locator("#deployment-more")).to_be_empty()
    expect(header.locator(".btn-outline-danger")).to_have_count(0)
    expect(header).to_contain_text("in line since" if language == "en" else "in coda da")
    shot(f"{language}-{width}-waiting-page-before", page)
    # Set on this very document: still there at the end means the page was never reloaded.
    page.evaluate("window.openedOnce = true")

    # The old notebook hands its GPU back; a minute later the admission pass starts the request.
    Quotas(app).update(holder, deleted=True)
    clock.offset = timedelta(minutes=1)
    with app.app_context():
        assert admit_once().admitted == 1

    expect(page.locator("#line-place")).to_have_count(0)
    expect(header.locator(".btn-outline-danger")).to_be_visible()
    expect(header).to_contain_text("launched" if language == "en" else "avviato")
    expect(page.locator("#deployment-more section")).to_be_visible()
    expect(page.locator("#deployment-status")).not_to_have_attribute("data-status", "WAITING")
    assert page.evaluate("window.openedOnce === true")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(f"{language}-{width}-waiting-page-started", page)
    context.close()
