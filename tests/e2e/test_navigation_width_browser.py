"""The navigation bar of someone who is an operator and an admin (every link shown) stays one
row at every laptop width where it is unfolded (Bootstrap's xl, 1200 px and up), in English and
in Italian, whose words are longer: no link wraps onto a second line, none goes under another."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def chief(people):
    return people.create(
        "chief", PASSWORD, display_name="Maria Gaetana Agnesi", roles=("operator", "admin")
    )


ONE_ROW = """() => {
  const bar = document.querySelector("nav.navbar > .container-xl");
  const items = [...bar.querySelectorAll(
    ".navbar-brand, .language-switch, .navbar-menus > li, #main-nav .nav-link")];
  const boxes = items.map(item => item.getBoundingClientRect());
  const line = parseFloat(getComputedStyle(bar.querySelector("#main-nav .nav-link")).lineHeight);
  const middles = boxes.map(box => box.top + box.height / 2);
  return {
    wrapped: items
      .filter((item, i) => item.classList.contains("nav-link") && boxes[i].height > 1.5 * line + 16)
      .map(item => item.textContent.trim()),
    rows: Math.max(...middles) - Math.min(...middles),
  };
}"""


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize("width", [1200, 1280, 1366])
def test_the_operators_and_admins_navigation_stays_one_row_at_laptop_widths(
    live_server, browser, shot, chief, language, width
):
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "chief", PASSWORD)
    context.set_extra_http_headers({"Accept-Language": language})
    page.goto(live_server.url + "/deployments/")
    expect(page.locator("#main-nav")).to_be_visible()
    shot(f"{language}-{width}-navigation-operator", page, full_page=False)
    found = page.evaluate(ONE_ROW)
    assert found["wrapped"] == [], found
    assert found["rows"] < 8, found
    context.close()
