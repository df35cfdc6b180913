"""No Content-Security-Policy violation anywhere on a launch, in Chromium: the form opened, its
fields changed (the cost box redrawn each time), Launch pressed, and the deployment's page
followed while it polls; for the plain virtual machine and a GPU notebook, in English and
Italian. Violations are gathered twice, from the document's own `securitypolicyviolation`
events (reported to the test by a binding, so navigations lose none) and from what Chromium
writes to its console; the portal's policy forbids inline styles (`style-src 'self'`)."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"

GATHER_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation([event.violatedDirective, event.blockedURI || "inline",
    event.sourceFile || document.location.href, event.lineNumber, event.sample || ""].join(" "));
}, true);
"""


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def ada(app, people):
    from app.auth.models import User
    from app.extensions import db

    user_id = people.create("ada", PASSWORD, display_name="Ada Lovelace")
    with app.app_context():
        db.session.get(User, user_id).groups = ["gpu-users"]
        db.session.commit()
    return user_id


def watched(browser, language):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    violations: list[str] = []
    context.expose_binding("reportViolation", lambda _source, text: violations.append(text))
    context.add_init_script(GATHER_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(15_000)

    def on_console(message):
        text = message.text
        if "Content Security Policy" in text or "Refused to" in text:
            violations.append(f"console: {text}")

    page.on("console", on_console)
    return context, page, violations


def changed_and_redrawn(page, field, value):
    """Set a field as a person would and wait for the cost box the change asks for."""
    with page.expect_response(lambda r: "/summary" in r.url or "summary" in r.url):
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
            field.dispatch_event("change")


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(
    ("slug", "changes"),
    [
        (
            "vm",
            [("#num_cpus", "4"), ("#ssh_public_key", SSH_KEY), ("#disk_size", "40 GB")],
        ),
        ("jupyter-ml-gpu", [("#num_gpus", "2"), ("#disk_size", "120 GB"), ("#num_gpus", "1")]),
    ],
)
def test_a_launch_from_the_form_to_the_deployment_page_breaks_no_content_policy(
    live_server, browser, ada, slug, changes, language
):
    context, page, violations = watched(browser, language)
    log_in(page, live_server.url, "ada", PASSWORD)
    if language == "it":
        context.set_extra_http_headers({"Accept-Language": "it"})

    page.goto(f"{live_server.url}/catalogue/{slug}/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    page.locator("html.js-ready").wait_for(state="attached")
    for selector, value in changes:
        field = page.locator(selector)
        if not field.is_visible():
            # The field sits on another tab of the form: open that tab first.
            pane = field.locator("xpath=ancestor::*[contains(@class, 'tab-pane')][1]")
            page.locator(f"[aria-controls='{pane.get_attribute('id')}']").click()
        changed_and_redrawn(page, field, value)
    launch = page.locator("#launch-button")
    expect(launch).to_be_enabled()
    launch.click()

    # The deployment's page, polling while the demo orchestrator creates it.
    header = page.locator("#deployment-header")
    expect(header).to_be_visible()
    with page.expect_response(lambda r: "/deployments/" in r.url and r.request.method == "GET"):
        pass
    page.goto(f"{live_server.url}/deployments/")
    expect(page.locator(".deployment-table")).to_be_visible()
    context.close()
    assert violations == [], f"{slug} ({language}): {violations}"
