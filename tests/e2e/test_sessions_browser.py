"""In the browser: the account page's sessions, the admins' user pages, and the console watch."""

from playwright.sync_api import expect

from tests.e2e.conftest import log_in, open_user_menu

PASSWORD = "correct horse battery"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}


def test_a_researcher_ends_a_session_left_open_on_another_device(
    app, people, live_server, browser, page, shot
):
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    phone = browser.new_context(**PHONE).new_page()
    log_in(phone, live_server.url, "ada", PASSWORD)
    log_in(page, live_server.url, "ada", PASSWORD)

    open_user_menu(page, "Ada Lovelace")
    page.get_by_role("link", name="Account and sessions").click()
    expect(page.get_by_role("heading", name="Where you are logged in")).to_be_visible()
    expect(page.locator(".session-list li")).to_have_count(2)
    expect(page.get_by_text("This browser")).to_have_count(1)
    shot("account-sessions")
    phone.goto(live_server.url + "/account/")
    shot("account-sessions-phone", target=phone)

    page.get_by_role("button", name="End all other sessions").click()
    expect(page.get_by_text("Ended 1 other session.")).to_be_visible()
    expect(page.locator(".session-list li")).to_have_count(1)
    phone.goto(live_server.url + "/deployments/")
    expect(phone.get_by_role("heading", name="Log in")).to_be_visible()
    expect(phone.get_by_text("Your session has expired")).to_be_visible()


def test_an_admin_puts_a_local_account_in_a_group(app, people, live_server, page, shot):
    people.create("root", PASSWORD, roles=("admin",), display_name="Portal Admin")
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    log_in(page, live_server.url, "root", PASSWORD)
    open_user_menu(page, "Portal Admin")
    page.get_by_role("link", name="Users").click()
    shot("admin-users")
    page.get_by_role("link", name="ada").click()
    # A form sent while its page is still loading can be dropped by the browser.
    page.wait_for_load_state()
    page.get_by_label("Group to add").fill("gpu users")
    page.get_by_role("button", name="Add group").click()
    expect(page.get_by_text("is not a group name")).to_be_visible()
    expect(page.get_by_label("Group to add")).to_have_value("gpu users")
    page.get_by_label("Group to add").fill("gpu-users")
    page.get_by_role("button", name="Add group").click()
    expect(page.get_by_text("ada is now in gpu-users.")).to_be_visible()
    expect(page.locator(".group-list")).to_contain_text("gpu-users")
    shot("admin-user-page")


def test_the_console_watch_catches_violations_on_every_tab(app, live_server, browser):
    @app.get("/test-inline-style")
    def inline_style():
        return '<!doctype html><p style="color: red">styled inline</p>'

    context = browser.new_context()
    first = context.new_page()
    first.goto(live_server.url + "/login")
    assert context.console_watch.errors == []
    second = context.new_page()
    second.goto(live_server.url + "/test-inline-style")
    second.wait_for_timeout(300)
    assert any("style-src" in error for error in context.console_watch.errors)
    context.console_watch.errors.clear()  # provoked on purpose
