"""Pages read well for everyone: axe-core (shipped by axe-playwright-python, no CDN) checks the
contrast of what a person sees on a few pages, the navigation bar above all."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"
# Only the colour-contrast rule: other rules are checked where their features are tested.
CONTRAST = {"runOnly": {"type": "rule", "values": ["color-contrast"]}}


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


def contrast_problems(page) -> list[str]:
    results = Axe().run(page, options=CONTRAST)
    return [
        f"{node['target']}: {node.get('failureSummary', '').strip()}"
        for violation in results.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("path", ["/catalogue/", "/deployments/", "/account/"])
def test_every_link_of_the_navigation_and_the_page_has_enough_contrast(
    live_server, page, people, shot, path
):
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + path)
    inactive = page.locator("nav .nav-link:not(.active)").first
    assert inactive.is_visible()

    problems = contrast_problems(page)

    shot("contrast" + path.replace("/", "-").rstrip("-"))
    assert problems == []
