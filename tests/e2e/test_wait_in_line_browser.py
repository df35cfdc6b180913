"""Waiting in line in the browser, at laptop and phone width: while only held resources stand in
the way, the form offers "Wait in line" beside the refusal (and hides it when the request is over
the limit by itself); pressing it records the request, whose page and row say its place; a
later request that fits is told that the one in line comes first."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.quotas.conftest import Quotas, charge

FORM = "/catalogue/jupyter-ml-gpu/"


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def ada(app, people):
    user_id = people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    quotas = Quotas(app)
    quotas.limit("user", user_id, gpus="2", cores="64")
    quotas.hold(user_id, charge(cores=8, gpus=1), name="old notebook")
    return user_id


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_the_form_offers_a_place_in_line_and_the_request_shows_it(
    live_server, browser, shot, ada, width, height
):
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + FORM)
    offer = page.locator("#wait-offer")
    wait_button = page.get_by_role("button", name="Wait in line")
    expect(offer).to_be_hidden()

    # Two GPUs: one is held by the old notebook, so it waits for that one to come back.
    page.locator("#num_gpus").fill("2")
    expect(page.locator("#launch-button")).to_be_disabled()
    expect(offer).to_be_visible()
    expect(page.locator("#wait-help")).to_contain_text("charges nothing while it waits")
    offer.scroll_into_view_if_needed()
    shot(f"wait-in-line-offered-{width}", page)

    # Three GPUs are over the limit of two by themselves: no line to wait in.
    page.locator("#num_gpus").fill("3")
    expect(offer).to_be_hidden()
    page.locator("#num_gpus").fill("2")
    expect(offer).to_be_visible()

    wait_button.click()
    expect(page.locator("#line-place")).to_be_visible()
    expect(page.locator(".line-sentence")).to_contain_text(
        "1st in line for GPUs under your own limit"
    )
    expect(page.get_by_role("button", name="Leave the line")).to_be_visible()
    shot(f"wait-in-line-detail-{width}", page)

    page.goto(live_server.url + "/deployments/")
    row_place = page.locator(".line-place")
    expect(row_place).to_contain_text("1st in line")
    shot(f"wait-in-line-row-{width}", page)

    # One GPU fits the limit now, but her request already in line waits for it: Launch stays
    # off, the box says it comes first, and Wait in line is offered.
    page.goto(live_server.url + FORM)
    page.locator("#num_gpus").fill("1")
    verdict = page.locator(".quota-verdict-wait")
    expect(verdict).to_contain_text("Fits your quota, but the line comes first:")
    expect(verdict).to_contain_text("Your own request that joined earlier waits for GPUs")
    expect(page.locator("#launch-button")).to_be_disabled()
    expect(page.locator("#launch-reason")).to_contain_text("requests in line come first")
    expect(offer).to_be_visible()
    # The box is swapped again after each change: scroll once no answer is on its way.
    page.wait_for_load_state("networkidle")
    page.locator(".quota-verdict-wait").scroll_into_view_if_needed()
    shot(f"wait-in-line-others-first-{width}", page)
    context.close()
