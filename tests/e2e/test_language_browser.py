"""The language switch in the navigation bar and the Account page's language and time zone, in
a real browser, by keyboard, at laptop and phone widths."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import log_in

WIDTHS = {"laptop": {"width": 1280, "height": 860}, "phone": {"width": 390, "height": 844}}


def serious_problems(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    results = Axe().run(page)
    return [
        f"{violation['id']} {node['target']}"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
        for node in violation["nodes"]
    ]


def tab_to(page, name: str, limit: int = 40):
    """Press Tab until the focused element is called ``name``, as a keyboard user would."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.getAttribute('aria-label')"
            " || document.activeElement.textContent.trim()"
        )
        if focused == name:
            return
    raise AssertionError(f"{name!r} was not reached with Tab")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_language_is_switched_from_the_navigation_bar_by_keyboard(
    app, people, live_server, browser, shot, width
):
    context = browser.new_context(
        viewport=WIDTHS[width], is_mobile=width == "phone", locale="en-GB"
    )
    page = context.new_page()
    page.goto(live_server.url + "/login")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    switch = page.get_by_role("group", name="Language")
    expect(switch.get_by_role("button", name="English")).to_have_attribute("aria-current", "true")

    tab_to(page, "Italiano")
    italiano = page.get_by_role("button", name="Italiano")
    expect(italiano).to_be_focused()
    shot(f"language-switch-focused-{width}", target=page, full_page=False)
    page.keyboard.press("Enter")

    expect(page.locator("html")).to_have_attribute("lang", "it")
    assert re.search(r"/login$", page.url)
    switch = page.get_by_role("group", name="Lingua")
    expect(switch.get_by_role("button", name="Italiano")).to_have_attribute("aria-current", "true")
    expect(switch.get_by_role("button", name="English")).to_have_attribute("lang", "en")
    shot(f"language-login-italian-{width}", target=page)
    assert serious_problems(page) == []

    # The choice made before login follows the person in.
    people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    # The login form is in Italian now: its fields are found by name, not by their words.
    page.locator("input[name=username]").fill("ada")
    page.locator("input[name=password]").fill("correct horse battery")
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "it")
    expect(page.get_by_role("navigation", name="Navigazione principale")).to_be_visible()
    shot(f"language-catalogue-italian-{width}", target=page)

    # Back to English by keyboard, on the page where it was used.
    tab_to(page, "English")
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert "/catalogue" in page.url
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_account_page_keeps_a_language_and_offers_the_browsers_time_zone(
    app, people, live_server, browser, shot, width
):
    people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    context = browser.new_context(
        viewport=WIDTHS[width], is_mobile=width == "phone", locale="en-GB", timezone_id="Asia/Tokyo"
    )
    page = context.new_page()
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + "/account/")
    section = page.locator("#language")
    section.scroll_into_view_if_needed()
    expect(section.get_by_label("Time zone", exact=True)).to_have_value("")
    suggestion = section.get_by_text("Your browser says Asia/Tokyo.")
    expect(suggestion).to_be_visible()
    shot(f"language-account-section-{width}", target=page)

    section.get_by_role("button", name="Use it").click()
    expect(section.get_by_label("Time zone", exact=True)).to_have_value("Asia/Tokyo")
    expect(section.get_by_label("Time zone", exact=True)).to_be_focused()
    section.get_by_label("Language", exact=True).select_option("it")
    section.get_by_role("button", name="Save language and time zone").click()

    expect(page.locator("html")).to_have_attribute("lang", "it")
    expect(page.get_by_text("Lingua e fuso orario salvati.")).to_be_visible()
    section = page.locator("#language")
    expect(section.get_by_label("Fuso orario", exact=True)).to_have_value("Asia/Tokyo")
    expect(section.get_by_text(re.compile(r"Adesso: .* JST\."))).to_be_visible()
    # The browser's zone is the one chosen: nothing more to suggest.
    expect(section.get_by_text("Il tuo browser indica")).to_be_hidden()
    shot(f"language-account-saved-italian-{width}", target=page)
    assert serious_problems(page) == []
    context.close()
