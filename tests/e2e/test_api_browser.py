"""In the browser: creating an access token on the Account page, and the API reference page
(Swagger UI from static/vendor under the portal's strict Content-Security-Policy)."""

from playwright.sync_api import expect

from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"


def test_a_researcher_creates_a_token_and_sees_it_once(app, people, live_server, page, shot):
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + "/account/")
    page.get_by_text("Create a token").click()
    page.get_by_label("Name", exact=True).fill("weekly notebook")
    page.get_by_label("deployments:read", exact=False).check()
    page.get_by_label("deployments:write", exact=False).check()
    page.get_by_role("button", name="Create the token").click()
    token = page.locator(".new-token")
    expect(token).to_contain_text("rcp_")
    expect(page.get_by_role("cell", name="weekly notebook")).to_be_visible()
    shot("account-token-created")
    page.goto(live_server.url + "/account/")
    expect(page.locator(".new-token")).to_have_count(0)
    expect(page.get_by_role("cell", name="weekly notebook")).to_be_visible()


def test_the_api_reference_page_renders_the_document(app, live_server, page, shot):
    page.goto(live_server.url + "/api/v1/docs")
    expect(page.get_by_text("Research cloud portal API")).to_be_visible()
    expect(page.get_by_text("/deployments/{deployment_id}/relaunch").first).to_be_visible()
    shot("api-reference")


def test_the_new_token_is_copied_with_its_copy_button(app, people, live_server, page, shot):
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + "/account/")
    page.get_by_text("Create a token").click()
    page.get_by_label("Name", exact=True).fill("copied at once")
    page.get_by_label("deployments:read", exact=False).check()
    page.get_by_role("button", name="Create the token").click()
    token = page.locator(".new-token").inner_text().strip()
    assert token.startswith("rcp_")

    page.locator("html.js-ready").wait_for(state="attached")
    copy = page.locator(".alert").get_by_role("button", name="Copy")
    copy.click()
    expect(page.locator(".alert [data-copy]")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    shot("account-token-copied", full_page=False)


def test_the_api_reference_leads_back_to_the_portal(app, people, live_server, page):
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + "/api/v1/docs")
    expect(page.get_by_text("Research cloud portal API")).to_be_visible()
    page.get_by_role("link", name="Back to the portal").click()
    expect(page).to_have_url(live_server.url + "/catalogue/")
    page.go_back()
    page.get_by_role("link", name="Access tokens").click()
    expect(page.get_by_role("heading", name="Access tokens")).to_be_visible()
