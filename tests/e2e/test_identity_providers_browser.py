"""Logging in through LDAP and through an OpenID Connect provider, in a real browser."""

from playwright.sync_api import expect

from tests.e2e.conftest import log_in, open_user_menu

ROLE_GROUPS = {"admin": ["portal-admins"], "operator": ["researchers"]}


def _navigation(page):
    return page.get_by_role("navigation", name="Main navigation")


def _log_out(page, name):
    open_user_menu(page, name)
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_text("You have logged out.")).to_be_visible()


def test_ldap_users_log_in_see_their_roles_navigation_and_log_out(
    make_app, slapd, live_server_for, page, shot
):
    app = make_app(LDAP=slapd.settings(label="Institute account"), ROLE_GROUPS=ROLE_GROUPS)
    server = live_server_for(app)

    page.goto(server.url + "/login")
    expect(page.get_by_label("Institute account")).to_be_visible()
    shot("login-ldap-and-local")

    log_in(page, server.url, "grace", "cobol forever", method="Institute account")
    expect(page.get_by_text("Welcome, Grace Hopper.")).to_be_visible()
    expect(_navigation(page).get_by_role("link", name="Quotas")).to_be_visible()  # researchers
    expect(_navigation(page).get_by_role("link", name="Admin")).to_have_count(0)
    shot("ldap-operator-navigation")
    _log_out(page, "Grace Hopper")

    log_in(page, server.url, "ada", "analytical engine", method="Institute account")
    expect(_navigation(page).get_by_role("link", name="Admin")).to_be_visible()
    _log_out(page, "Ada Lovelace")

    log_in(page, server.url, "ada", "wrong", method="Institute account")
    expect(page.get_by_text("Unknown username or wrong password.")).to_be_visible()


def test_oidc_users_log_in_at_the_provider_see_their_navigation_and_log_out(
    make_app, oidc_provider, live_server_for, page, shot
):
    app = make_app(
        OIDC_PROVIDERS=[oidc_provider.config(label="INDIGO IAM")],
        ROLE_GROUPS=ROLE_GROUPS,
        LOCAL_LOGIN_ENABLED=False,
    )
    server = live_server_for(app)
    page.goto(server.url + "/deployments/")
    expect(page.get_by_text("Please log in to see this page.")).to_be_visible()
    expect(page.get_by_label("Username")).to_have_count(0)  # no password form at all
    shot("login-oidc-only")

    page.get_by_role("link", name="Log in with INDIGO IAM").click()
    # The provider's own page: pick the predefined person.
    page.get_by_role("button", name=oidc_provider.sub("ada"), exact=True).click()
    expect(page.get_by_role("heading", name="My deployments")).to_be_visible()  # next kept
    expect(page.get_by_text("Welcome, Ada Lovelace.")).to_be_visible()
    expect(_navigation(page).get_by_role("link", name="Admin")).to_be_visible()
    shot("oidc-admin-navigation")
    _log_out(page, "Ada Lovelace")
