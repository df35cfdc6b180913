from playwright.sync_api import expect

from tests.e2e.conftest import log_in, open_user_menu


def test_a_researcher_logs_in_sees_only_their_navigation_and_logs_out(
    app, people, live_server, page, shot
):
    people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    shot("login-page")

    log_in(page, live_server.url, "ada", "correct horse battery")
    expect(page.get_by_text("Welcome, Ada Lovelace.")).to_be_visible()
    nav = page.get_by_role("navigation", name="Main navigation")
    expect(nav.get_by_role("link", name="Catalogue")).to_be_visible()
    expect(nav.get_by_role("link", name="My deployments")).to_be_visible()
    expect(nav.get_by_role("link", name="Admin")).to_have_count(0)
    expect(nav.get_by_role("link", name="Quotas")).to_have_count(0)
    shot("researcher-after-login")

    open_user_menu(page, "Ada Lovelace")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_text("You have logged out.")).to_be_visible()


def test_an_admin_sees_admin_and_quotas_in_the_navigation(app, people, live_server, page, shot):
    people.create("root", "correct horse battery", roles=("admin",), display_name="Admin Person")
    log_in(page, live_server.url, "root", "correct horse battery")
    nav = page.get_by_role("navigation", name="Main navigation")
    expect(nav.get_by_role("link", name="Admin")).to_be_visible()
    expect(nav.get_by_role("link", name="Quotas")).to_be_visible()
    shot("admin-after-login")


def test_a_wrong_password_shows_a_clear_message_on_a_phone(app, people, live_server, browser, shot):
    people.create("ada")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "ada", "not the password")
    expect(phone.get_by_text("Unknown username or wrong password.")).to_be_visible()
    shot("login-wrong-password-phone", target=phone)
    context.close()
