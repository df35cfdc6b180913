"""The portal by keyboard alone, in Chromium: the launch form (through its fields and tabs, tabs
switched with the arrow keys, sent with Enter), the deployment list (filtered, a row opened, a
deployment deleted through its confirmation) and the catalogue editor (opened, edited, saved).
At every step the focused element shows a focus ring, and the focus moves down the page in the
order the page reads.

Controls are found by id or address, never by their words: the same steps hold in Italian.
"""

import re

import pytest
from playwright.sync_api import expect

from app.deployments.models import Deployment
from app.extensions import db
from tests.e2e.tour import JUPYTER, LAPTOP, WAIT, served_tour

# The focused element's own ring: an outline (links, Chromium's default) or Bootstrap's
# box-shadow (buttons, fields, tabs), read from its computed style.
FOCUS = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {tag: "body", visible: false, after: true};
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
  const shadow = style.boxShadow && style.boxShadow !== "none";
  const previous = window.__focusedBefore;
  const after = !previous || previous === el || previous.contains(el)
    || !!(previous.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  window.__focusedBefore = el;
  return {
    tag: `${el.tagName.toLowerCase()}#${el.id}.${[...el.classList].join(".")}`,
    visible: outline || shadow,
    after: after,
  };
}
"""


@pytest.fixture(scope="module")
def tour(tmp_path_factory, starter_catalogue_db, chromium):
    with served_tour(tmp_path_factory.mktemp("keyboard"), starter_catalogue_db, chromium) as tour:
        tour.deployments["scratch"] = tour.deploy(
            "ada",
            "jupyter-vm",
            JUPYTER,
            "Scratch notebook",
            {"status": "CREATE_COMPLETE", "site": "RECAS-BARI"},
        )
        yield tour


@pytest.fixture
def as_user(tour, browser):
    """A tab logged in as ``username`` at laptop width."""

    def open_tab(username):
        context = browser.new_context(viewport=LAPTOP, storage_state=tour.logins[username])
        page = context.new_page()
        page.set_default_timeout(WAIT)
        return page

    return open_tab


class Keyboard:
    """Moves the focus with Tab as a person does, checking each stop on the way."""

    def __init__(self, page):
        self.page = page
        self.stops: list[str] = []

    def focused(self) -> dict:
        return self.page.evaluate(FOCUS)

    def tab_to(self, selector: str, backwards: bool = False, limit: int = 80) -> None:
        """Press Tab (Shift+Tab) until the element matching ``selector`` has the focus; every
        element passed on the way shows its focus and comes later in the page than the last."""
        target = self.page.locator(selector)
        expect(target).to_have_count(1, timeout=WAIT)
        for _ in range(limit):
            self.page.keyboard.press("Shift+Tab" if backwards else "Tab")
            stop = self.focused()
            self.stops.append(stop["tag"])
            assert stop["visible"], f"no visible focus on {stop['tag']} (after {self.stops})"
            if not backwards:
                assert stop["after"], f"the focus went back up the page to {stop['tag']}"
            if target.evaluate("(el) => el === document.activeElement"):
                return
        raise AssertionError(f"{selector} never took the focus; it went {self.stops}")

    def restart(self):
        """Order is checked from here on (after a jump: a link followed, a tab switched)."""
        self.page.evaluate("window.__focusedBefore = document.activeElement")


def skip_to_content(page, keys: Keyboard) -> None:
    """The first Tab of a page reaches the skip link; Enter on it lands in the page's content."""
    page.locator("html.js-ready").wait_for(state="attached")
    keys.tab_to("a[href='#content']")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#content$"), timeout=WAIT)
    keys.restart()


def test_the_launch_form_is_filled_in_switched_between_tabs_and_sent_by_keyboard(
    tour, as_user, shot
):
    page = as_user("ada")
    page.goto(tour.url + "/catalogue/jupyter-vm/")
    keys = Keyboard(page)
    skip_to_content(page, keys)

    keys.tab_to("#deployment_name")
    page.keyboard.type("Typed by keyboard")
    keys.tab_to("#tab-1")
    tabs = page.get_by_role("tab")
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "true", timeout=WAIT)

    # The arrow keys move between tabs; Tab goes on into the shown tab's fields.
    page.keyboard.press("ArrowRight")
    expect(tabs.nth(1)).to_be_focused(timeout=WAIT)
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true", timeout=WAIT)
    expect(page.locator("#pane-2")).to_be_visible(timeout=WAIT)
    keys.restart()
    keys.tab_to("#disk_size")
    shot("keyboard-launch-second-tab", page)
    keys.tab_to("#tab-2", backwards=True)
    page.keyboard.press("ArrowLeft")
    expect(tabs.nth(0)).to_be_focused(timeout=WAIT)
    expect(page.locator("#pane-1")).to_be_visible(timeout=WAIT)
    keys.restart()
    keys.tab_to("#num_cpus")
    cores = int(page.locator("#num_cpus").input_value())
    page.keyboard.press("ArrowRight")  # a slider takes the arrows: one core more
    expect(page.locator("#num_cpus")).to_have_value(str(cores + 1), timeout=WAIT)
    keys.tab_to("#jupyter_password")
    page.keyboard.type("a-long-notebook-password")
    shot("keyboard-launch-filled", page)

    # Enter in a field launches (and does not apply the first quick choice).
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/deployments/\d+$"), timeout=WAIT)
    expect(page.locator("h1")).to_contain_text("Typed by keyboard", timeout=WAIT)


def test_without_scripts_enter_in_a_launch_field_launches_rather_than_applying_a_preset(
    tour, browser, shot
):
    context = browser.new_context(
        viewport=LAPTOP, storage_state=tour.logins["ada"], java_script_enabled=False
    )
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(tour.url + "/catalogue/jupyter-vm/?defaults=1")
    assert page.locator(".preset-button").count() > 0  # a preset's button is in the form
    page.locator("#jupyter_password").fill("a-long-notebook-password")
    name = page.locator("#deployment_name")
    name.fill("Sent with Enter, no scripts")
    name.press("Enter")

    expect(page).to_have_url(re.compile(r"/deployments/\d+$"), timeout=WAIT)
    expect(page.locator("h1")).to_contain_text("Sent with Enter, no scripts", timeout=WAIT)
    shot("no-scripts-launched-with-enter", page)


def test_the_deployment_list_is_filtered_opened_and_a_deployment_deleted_by_keyboard(
    tour, as_user, shot
):
    page = as_user("ada")
    page.goto(tour.url + "/deployments/")
    keys = Keyboard(page)
    skip_to_content(page, keys)
    rows = page.locator(".deployment-table tbody tr")
    expect(rows).not_to_have_count(0, timeout=WAIT)

    keys.tab_to("#filter-text")
    page.keyboard.type("Scratch")
    expect(rows).to_have_count(1, timeout=WAIT)  # filtered as typed, without a reload
    expect(page.locator("#filter-text")).to_be_focused(timeout=WAIT)
    scratch = tour.deployments["scratch"]
    keys.tab_to(f".deployment-name a[href$='/deployments/{scratch}']")
    shot("keyboard-deployments-filtered", page)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/deployments/{scratch}$"), timeout=WAIT)

    page.go_back()
    expect(page.locator("#filter-text")).to_have_value("Scratch", timeout=WAIT)
    keys = Keyboard(page)
    skip_to_content(page, keys)
    keys.tab_to(f"a[href$='/deployments/{scratch}/delete']")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/deployments/{scratch}/delete$"), timeout=WAIT)

    keys = Keyboard(page)
    skip_to_content(page, keys)
    keys.tab_to(f"form[action$='/deployments/{scratch}/delete'] button[type=submit]")
    shot("keyboard-delete-confirmation", page)
    page.keyboard.press("Enter")
    expect(page).not_to_have_url(re.compile(r"/delete$"), timeout=WAIT)
    expect(page.locator(".alert")).to_be_visible(timeout=WAIT)  # the delete is under way

    with tour.app.app_context():
        assert db.session.get(Deployment, scratch).status in ("deleting", "deleted")


def test_the_catalogue_editor_is_opened_edited_and_saved_by_keyboard(tour, as_user, shot):
    page = as_user("grace")
    page.goto(tour.url + "/admin/catalogue/vm/")
    keys = Keyboard(page)
    skip_to_content(page, keys)

    keys.tab_to("main a.btn[href$='/admin/catalogue/vm/edit']")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/admin/catalogue/vm/edit$"), timeout=WAIT)
    keys = Keyboard(page)
    skip_to_content(page, keys)

    keys.tab_to("#tosca_text")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# Read and changed by keyboard\n")
    # Tab leaves the text box (it is no trap): on to the sidecar, then the message.
    keys.tab_to("#sidecar_text")
    keys.tab_to("#message")
    page.keyboard.type("A comment typed without a mouse")
    shot("keyboard-editor", page)
    page.keyboard.press("Enter")

    # Saved: the new revision opens in its preview, to be checked before it is published.
    expect(page).to_have_url(re.compile(r"/admin/catalogue/vm/revisions/2/preview$"), timeout=WAIT)
    page.goto(tour.url + "/admin/catalogue/vm/")
    revisions = page.locator(".revisions-table")
    expect(revisions).to_contain_text("A comment typed without a mouse", timeout=WAIT)


def test_choosing_an_application_filters_the_list_and_leaving_the_search_box_keeps_it(
    tour, as_user
):
    page = as_user("ada")
    page.goto(tour.url + "/deployments/")
    page.locator("html.js-ready").wait_for(state="attached")
    rows = page.locator(".deployment-table tbody tr")
    expect(rows).not_to_have_count(0, timeout=WAIT)
    # A select filters as it is chosen, without a reload (the page's own state survives).
    page.evaluate("window.__sameDocument = true")
    page.select_option("#filter-template", "chronos-gpu-job")
    training = page.locator(".deployment-name", has_text="Training run")
    expect(training).to_have_count(1, timeout=WAIT)
    expect(page.locator(".deployment-name", has_text="Notebook")).to_have_count(0, timeout=WAIT)
    assert page.evaluate("window.__sameDocument === true")
    # Typing filters once; leaving the box asks for nothing again (the rows stay as they are).
    # The list's own polling (a row is in progress) is left out of the count.
    asked = []
    page.on(
        "request",
        lambda r: asked.append(r.url) if "/rows" in r.url and "poll=1" not in r.url else None,
    )
    with page.expect_response(lambda r: "/rows" in r.url and "q=Training" in r.url):
        page.locator("#filter-text").fill("Training")
    expect(training).to_have_count(1, timeout=WAIT)
    typed = len(asked)
    page.locator("#filter-text").blur()
    # The next thing asked of the list is the next choice, not the box again.
    with page.expect_response(lambda r: "/rows" in r.url and "template=&" in r.url + "&"):
        page.select_option("#filter-template", "")
    assert len(asked) == typed + 1, asked
