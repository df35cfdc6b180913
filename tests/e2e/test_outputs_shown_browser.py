"""A deployment's outputs as its page shows them in English and Italian, at laptop and phone
width: one given as null is "not given" with nothing to copy, and one kept cut says how much of
it was kept, without the page scrolling sideways."""

import pytest
from playwright.sync_api import expect

from app.deployments import said
from tests.e2e.conftest import log_in
from tests.quotas.conftest import Quotas, charge

PASSWORD = "correct horse battery"
WORDS = {
    "en": ("Not given", "Cut: only its first 4,096 characters of 20,000 are kept."),
    "it": ("Non fornito", "Tagliato: ne sono conservati solo i primi 4.096 caratteri su 20.000."),
}


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def deployment(app, people):
    user_id = people.create("ada", PASSWORD, display_name="Ada Lovelace")
    quotas = Quotas(app)
    deployment_id = quotas.hold(user_id, charge(cores=2), name="Thesis analysis")
    outputs = said.outputs({"node_ip": None, "banner": "0123456789" * 2000})
    quotas.update(deployment_id, outputs=outputs)
    return deployment_id


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_a_null_output_is_not_given_and_a_cut_one_says_so(
    live_server, browser, shot, deployment, language, width, height
):
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", PASSWORD)
    context.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{live_server.url}/deployments/{deployment}")
    not_given, cut = WORDS[language]
    outputs = page.locator(".deployment-outputs")
    expect(outputs.locator(".output-empty")).to_have_text(not_given)
    expect(outputs.locator(".output-cut")).to_have_text(cut)
    expect(outputs.locator("[data-copy-value]")).to_have_count(1)  # the cut one's, not null's
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    outputs.scroll_into_view_if_needed()
    shot(f"{language}-{width}-outputs-not-given-and-cut", page)
    context.close()
