"""The operators' Lines page with thousands of requests waiting, in the browser at laptop and
phone width, in English and Italian: the overview of the lines, the pages, going to a page by
its number, and a page past the end; axe-core finds nothing serious, nothing scrolls sideways."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.lines.crowd import GROUP_LINE, SITE_LINE, fill

PASSWORD = "correct horse battery"
SERIOUS = ("serious", "critical")


@pytest.fixture
def crowded(app, people):
    ada = people.create("ada", PASSWORD)
    people.create("olga", PASSWORD, roles=("operator",))
    fill(app, ada, GROUP_LINE, 2450, "grp")
    fill(app, ada, SITE_LINE, 50, "site")
    fill(app, ada, f"user:{ada}:cores:", 500, "own")
    return app


def serious_problems(page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']}: {node['target']}"
        for violation in results.response["violations"]
        if violation.get("impact") in SERIOUS
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize(
    ("width", "height", "language"), [(1280, 860, "en"), (390, 844, "en"), (1280, 860, "it")]
)
def test_an_operator_pages_through_thousands_of_waiting_requests(
    live_server, browser, shot, crowded, width, height, language
):
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=width < 500,
        extra_http_headers={"Accept-Language": language},
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "olga", PASSWORD)
    page.goto(live_server.url + "/lines/")
    expect(page.locator(".lines-count")).to_have_count(3)
    expect(page.locator(".line-entry")).to_have_count(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(page) == []
    shot(f"lines-first-page-{language}-{width}", page, full_page=False)

    # The group's line ends on page 25, where the sites' line begins under its own heading.
    page.locator(".lines-count a").nth(1).click()
    expect(page.locator(".waiting-line")).to_have_count(2)
    page.locator("#line-2").scroll_into_view_if_needed()
    shot(f"lines-two-lines-{language}-{width}", page, full_page=False)

    page.locator("#lines-page").fill("30")
    page.locator(".lines-go button").click()
    expect(page.locator(".line-entry").last).to_contain_text("own-00500")
    page.goto(live_server.url + "/lines/?page=31")
    expect(page.locator(".lines-past-end")).to_be_visible()
    expect(page.locator(".line-entry").last).to_contain_text("own-00500")
    assert serious_problems(page) == []
    shot(f"lines-past-the-end-{language}-{width}", page, full_page=False)
    context.close()
