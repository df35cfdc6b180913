"""In the browser: the notifications menu in the navigation bar, and the page listing them."""

from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.notifications.conftest import Portal

PASSWORD = "correct horse battery"


def _news_for(portal, owner):
    ready = portal.deployment(
        owner, name="Course notebook", outputs={"notebook": "https://203.0.113.7:8888/lab"}
    )
    portal.record(ready, "ready", source="callback")
    failed = portal.deployment(owner, name="GPU training run")
    portal.record(failed, "failed", source="sync", reason="No matching flavor for 64 GB")
    portal.record(
        ready,
        None,
        source="portal",
        kind="lease-warned",
        details={"ends_at": "2026-11-27T14:00:00Z", "before_minutes": 60},
    )


def test_a_researcher_sees_the_unread_count_opens_the_menu_and_reads_the_page(
    app, people, live_server, page, shot
):
    ada = people.create("ada", PASSWORD, display_name="Ada Lovelace", email="ada@example.org")
    _news_for(Portal(app), ada)
    log_in(page, live_server.url, "ada", PASSWORD)

    bell = page.get_by_role("button", name="Notifications")
    expect(bell).to_contain_text("3")
    page.locator("html.js-ready").wait_for(state="attached")
    bell.click()
    menu = page.locator(".notifications-menu")
    expect(menu).to_be_visible()
    expect(menu).to_contain_text("3 unread notifications")
    expect(menu).to_contain_text("Course notebook ends in 1 hour")
    shot("notifications-menu", full_page=False)

    menu.get_by_role("link", name="All notifications").click()
    expect(page.get_by_role("heading", name="Notifications", exact=True)).to_be_visible()
    listing = page.locator(".notifications-list")
    expect(listing.get_by_text("GPU training run failed to start")).to_be_visible()
    expect(listing.get_by_text("No site offers a machine size matching")).to_be_visible()
    expect(listing.get_by_role("link", name="Open Course notebook")).to_have_attribute(
        "href", "https://203.0.113.7:8888/lab"
    )
    shot("notifications-page")

    listing.locator("li").first.get_by_role("button", name="Mark read").click()
    expect(page.get_by_role("button", name="Notifications")).to_contain_text("2")
    page.get_by_role("button", name="Mark all read").click()
    expect(page.get_by_text("2 notifications marked read.")).to_be_visible()
    expect(page.locator(".notification-count")).to_have_count(0)
    expect(page.get_by_role("button", name="Mark read")).to_have_count(0)


def test_a_researcher_chooses_what_comes_by_mail_on_the_account_page(
    app, people, live_server, page, shot
):
    people.create("ada", PASSWORD, display_name="Ada Lovelace", email="ada@example.org")
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + "/account/")
    expect(page.get_by_label("A deployment failed to start")).to_be_checked()
    expect(page.get_by_label("A deployment is ready")).not_to_be_checked()
    page.get_by_label("A deployment is ready").check()
    page.get_by_label("A deployment failed to start").uncheck()
    page.get_by_role("button", name="Save e-mail choices").click()
    expect(page.get_by_text("Your e-mail choices are saved.")).to_be_visible()
    expect(page.get_by_label("A deployment is ready")).to_be_checked()
    expect(page.get_by_label("A deployment failed to start")).not_to_be_checked()
    shot("account-email-choices")


def test_on_a_phone_the_bell_stays_beside_the_menu_button_and_opens_on_the_screen(
    app, people, live_server, browser, shot
):
    ada = people.create("ada", PASSWORD, display_name="Ada Lovelace", email="ada@example.org")
    _news_for(Portal(app), ada)
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(phone, live_server.url, "ada", PASSWORD)

    expect(phone.locator(".navbar-toggler")).to_be_visible()
    expect(phone.locator("#main-nav")).to_be_hidden()  # the rest of the bar is folded away
    bell = phone.get_by_role("button", name="Notifications")
    expect(bell).to_be_visible()
    expect(bell).to_contain_text("3")
    phone.locator("html.js-ready").wait_for(state="attached")
    bell.click()
    menu = phone.locator(".notifications-menu")
    expect(menu).to_be_visible()
    box = menu.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert phone.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    shot("notifications-menu-phone", target=phone, full_page=False)
