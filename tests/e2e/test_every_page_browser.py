"""Every kind of page the portal has, in English and Italian, at laptop and phone width, and in
the states people see (a launch form filled from last time, sent back with errors, over quota; a
deployment and a job in each status): axe-core (shipped by axe-playwright-python, no CDN) finds
nothing serious or critical, the page never scrolls sideways at 390 px, no id is said twice, no
button, link of the navigation or badge has text that does not fit its box, no field's
placeholder is cut off, and no time of day is shown without its zone. Italian pages are saved
as screenshots at both widths.

One live portal serves the whole module (tests/e2e/tour.py fills it); each person logs in
once and every page opens in a browser context of its own, with the language asked for the way
a browser asks (``Accept-Language``).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS
from tests.e2e.tour import LAPTOP, PHONE, WAIT, served_tour

SERIOUS = ("serious", "critical")
LANGUAGES = ("en", "it")
WIDTHS = {"laptop": LAPTOP, "phone": PHONE}
_axe = Axe()


@pytest.fixture(scope="module")
def tour(tmp_path_factory, starter_catalogue_db, chromium):
    with served_tour(tmp_path_factory.mktemp("every-page"), starter_catalogue_db, chromium) as tour:
        yield tour


# --- How each page is reached --------------------------------------------------------------------


def settled(page):
    """Wait until the shown tab has faded in: axe reads colours as they are painted."""
    panes = page.locator(".tab-pane.active")
    for index in range(panes.count()):
        expect(panes.nth(index)).to_have_css("opacity", "1", timeout=WAIT)


def _stays(page):
    """The page as it opened."""
    yield ""


def _every_tab(page):
    """Each tab of the launch form in turn, chosen the way a person does."""
    tabs = page.get_by_role("tab")
    for index in range(tabs.count()):
        tab = tabs.nth(index)
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true", timeout=WAIT)
        settled(page)
        yield f"tab{index + 1}"


def _over_quota(page):
    """The launch summary once the request no longer fits: the physics group allows one GPU.
    (Controls are found by id here and below: their words change with the language.)"""
    page.locator("#deployment_group").select_option("physics")
    page.get_by_role("tab").nth(1).click()
    settled(page)
    gpus = page.locator("#num_gpus")
    gpus.fill("2")
    gpus.dispatch_event("change")
    expect(page.locator("#launch-summary[data-launchable='no']")).to_be_attached(timeout=WAIT)
    expect(page.locator("#launch-button")).to_be_disabled(timeout=WAIT)
    yield ""


def _with_errors(page):
    """The launch form sent back with a value to change (a notebook password too short), on
    the tab that holds it."""
    page.locator("html.js-ready").wait_for(state="attached")
    page.locator("#jupyter_password").fill("short")
    page.locator("#launch-button").click()
    expect(page.locator("#jupyter_password.is-invalid")).to_be_visible(timeout=WAIT)
    page.locator("html.js-ready").wait_for(state="attached")
    settled(page)
    yield ""


def _new_token(page):
    """The account page answering the token form with the token just made."""
    form = page.locator("form[action$='/account/tokens#tokens']")
    page.locator("details", has=form).locator("summary").click()
    form.locator("#name").fill("Laptop scripts")
    form.locator("input[type=checkbox]").first.check()
    form.locator("button[type=submit]").click()
    expect(page.locator("code.new-token")).to_be_visible(timeout=WAIT)
    yield ""


def _menus_open(page):
    """The navigation with its menus open: at phone width behind the toggler first."""
    toggler = page.locator(".navbar-toggler")
    page.locator("html.js-ready").wait_for(state="attached")
    if toggler.is_visible():
        toggler.click()
        expect(page.locator("#main-nav")).to_have_class(re.compile(r"\bshow\b"), timeout=WAIT)
    page.locator("#user-menu").click()
    expect(page.locator("#user-menu + .dropdown-menu")).to_be_visible(timeout=WAIT)
    yield ""


@dataclass(frozen=True)
class Visit:
    name: str
    user: str | None
    path: str
    steps: Callable = _stays
    status: int = 200
    ready: str = "html.js-ready"  # what is there once the page's scripts have run


VISITS = [
    Visit("login", None, "/login"),
    Visit("catalogue", "ada", "/catalogue/"),
    Visit("navigation", "grace", "/catalogue/", _menus_open),
    Visit("launch-form", "newcomer", "/catalogue/jupyter-vm/", _every_tab),
    Visit("launch-form-last-time", "ada", "/catalogue/jupyter-vm/", _every_tab),
    Visit("launch-form-errors", "newcomer", "/catalogue/jupyter-vm/", _with_errors),
    Visit("launch-summary-over-quota", "ada", "/catalogue/jupyter-vm/", _over_quota),
    Visit("launch-job", "ada", "/catalogue/chronos-gpu-job/", _every_tab),
    Visit("deployments-empty", "newcomer", "/deployments/"),
    Visit("deployments", "ada", "/deployments/"),
    Visit("deployment-submitting", "ada", "/deployments/{submitting}"),
    Visit("deployment-creating", "ada", "/deployments/{creating}"),
    Visit("deployment-ready", "ada", "/deployments/{ready}"),
    Visit("deployment-failed", "ada", "/deployments/{failed}"),
    Visit("deployment-deleting", "ada", "/deployments/{deleting}"),
    Visit("deployments-gone", "ada", "/deployments/?status=gone"),
    Visit("deployment-job-queued", "ada", "/deployments/{job_queued}"),
    Visit("deployment-job", "ada", "/deployments/{job}"),
    Visit("deployment-job-succeeded", "ada", "/deployments/{job_succeeded}"),
    Visit("deployment-job-failed", "ada", "/deployments/{job_failed}"),
    Visit("deployment-delete", "ada", "/deployments/{ready}/delete"),
    Visit("account", "ada", "/account/"),
    Visit("tokens", "ada", "/account/", _new_token),
    Visit("notifications", "ada", "/notifications/"),
    Visit("notifications-undelivered", "grace", "/notifications/undelivered"),
    Visit("leases", "grace", "/leases/"),
    Visit("quota-mine", "ada", "/quotas/mine"),
    Visit("quotas", "grace", "/quotas/"),
    Visit("quota-user", "grace", "/quotas/users/{ada}"),
    Visit("quota-groups", "grace", "/quotas/groups/"),
    Visit("quota-group", "grace", "/quotas/group?name=physics"),
    Visit("quota-site", "grace", "/quotas/site"),
    Visit("quota-history", "grace", "/quotas/history"),
    Visit("quota-usage", "grace", "/quotas/usage"),
    Visit("admin-catalogue", "grace", "/admin/catalogue/"),
    Visit("admin-template", "grace", "/admin/catalogue/jupyter-vm/"),
    Visit("admin-editor", "grace", "/admin/catalogue/jupyter-vm/edit"),
    Visit("admin-revision", "grace", "/admin/catalogue/jupyter-vm/revisions/1"),
    Visit("admin-preview", "grace", "/admin/catalogue/jupyter-vm/revisions/1/preview", _every_tab),
    Visit("admin-new", "grace", "/admin/catalogue/new"),
    Visit("admin-libraries", "grace", "/admin/catalogue/libraries/"),
    Visit("users", "grace", "/admin/users/"),
    Visit("user", "grace", "/admin/users/{ada}"),
    Visit("api-reference", "ada", "/api/v1/docs", ready=".swagger-ui .opblock-tag"),
    Visit("not-found", "ada", "/no-such-page", status=404),
    Visit("forbidden", "ada", "/admin/catalogue/", status=403),
]


# --- What is checked on each ---------------------------------------------------------------------

# Text that does not fit its box: a control, a link of the navigation, a badge or a tab whose
# content is wider than itself, or that reaches past the window's right edge without a
# scrolling box around it to hold it.
CLIPPED = """
() => {
  const selector = "button, .btn, .nav-link, .navbar-brand, .dropdown-item, .badge, .page-link,"
    + " .form-label, .form-check-label, h1, h2";
  const scrolls = (el) => {
    for (let box = el.parentElement; box; box = box.parentElement) {
      const x = getComputedStyle(box).overflowX;
      if (x === "auto" || x === "scroll") return true;
    }
    return false;
  };
  const found = [];
  for (const el of document.querySelectorAll(selector)) {
    if (!el.checkVisibility({visibilityProperty: true}) || el.closest(".visually-hidden")) continue;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    const text = el.innerText.trim().slice(0, 40);
    const what = `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${text}"`;
    if (style.display !== "inline" && el.scrollWidth > el.clientWidth + 1) {
      found.push(`${what}: content ${el.scrollWidth}px in ${el.clientWidth}px`);
    } else if (rect.right > window.innerWidth + 1 && !scrolls(el)) {
      found.push(`${what}: reaches ${Math.round(rect.right)}px of ${window.innerWidth}px`);
    }
  }
  return found;
}
"""


# Ids said twice: a label, a description or a tab names the first alone. (Hidden inputs, such
# as each form's CSRF token, are never named by anything.)
TWICE = """
() => {
  const seen = {};
  for (const el of document.querySelectorAll("[id]:not(input[type=hidden])")) {
    seen[el.id] = (seen[el.id] || 0) + 1;
  }
  return Object.keys(seen).filter((id) => seen[id] > 1).map((id) => `id "${id}" is used twice`);
}
"""


# Placeholders cut off: a field's hint wider than the room inside the field. Neither scrollWidth
# nor clientWidth sees a placeholder, so its text is measured in the field's own font.
PLACEHOLDERS = """
() => {
  const context = document.createElement("canvas").getContext("2d");
  const found = [];
  for (const el of document.querySelectorAll("input[placeholder]")) {
    if (!el.placeholder || !el.checkVisibility({visibilityProperty: true})) continue;
    const style = getComputedStyle(el);
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = context.measureText(el.placeholder).width;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (text > room + 1) {
      found.push(`the placeholder "${el.placeholder}" of #${el.id}: ${Math.ceil(text)}px`
        + ` in ${Math.floor(room)}px`);
    }
  }
  return found;
}
"""


# A time of day shown without its zone: the README promises every time names it ("14:05 CET",
# "02:00 UTC"). Addresses and ports ("203.0.113.7:8888") are not times.
ZONELESS = r"""
() => {
  const times = /(^|[^\d:.])(\d{1,2}:\d\d)(?![\d:])(?!\s*(?:[A-Z]{2,5}\b|GMT|[+-]\d))/g;
  const found = [];
  for (const match of document.body.innerText.matchAll(times)) {
    const at = match.index + match[1].length;
    found.push(`a time without its zone: "${document.body.innerText.slice(at - 30, at + 20)}"`);
  }
  return found;
}
"""


def serious_violations(page) -> list[str]:
    results = _axe.run(page)
    return [
        f"{violation['id']} ({violation['impact']}) {node['target']}: {node['html'][:160]}"
        for violation in results.response["violations"]
        if violation["impact"] in SERIOUS
        for node in violation["nodes"]
    ]


def overflow(page) -> list[str]:
    found = page.evaluate(CLIPPED)
    if not page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"):
        width = page.evaluate("document.scrollingElement.scrollWidth")
        found.insert(0, f"the page is {width}px wide in a {page.viewport_size['width']}px window")
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("visit", VISITS, ids=[v.name for v in VISITS])
def test_the_page_reads_well_for_everyone(tour, browser, visit, language, width):
    context = browser.new_context(
        viewport=WIDTHS[width],
        locale="it-IT" if language == "it" else "en-GB",
        extra_http_headers={"Accept-Language": "it" if language == "it" else "en"},
        storage_state=tour.logins[visit.user] if visit.user else None,
    )
    page = context.new_page()
    page.set_default_timeout(WAIT)
    ids = {**tour.deployments, **tour.users}
    response = page.goto(tour.url + visit.path.format(**ids))
    assert response.status == visit.status
    page.locator(visit.ready).first.wait_for(state="attached")

    problems = {}
    for state in visit.steps(page):
        label = "-".join(filter(None, [visit.name, state]))
        found = (
            serious_violations(page)
            + page.evaluate(TWICE)
            + overflow(page)
            + page.evaluate(PLACEHOLDERS)
            + ([] if visit.name == "api-reference" else page.evaluate(ZONELESS))
        )
        if found:
            problems[label] = found
        if language == "it":
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"it-{width}-{label}.png"), full_page=True)

    assert not problems, "\n".join(f"{label}: {found}" for label, found in problems.items())
