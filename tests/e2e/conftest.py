"""Browser tests: the portal served on a free loopback port, driven by Debian's Chromium."""

import os
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
CHROMIUM = os.environ.get("PORTAL_TEST_CHROMIUM", "/usr/bin/chromium")
# Chromium reaches for Google's services at start; the machine's network is closed to them.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: `make test` installs it (as root).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class WatchedBrowser:
    """The browser as tests see it: every context it opens has its console watched."""

    def __init__(self, chromium):
        self._chromium = chromium
        self.contexts = []

    def new_context(self, **options):
        context = self._chromium.new_context(**options)
        context.console_watch = ConsoleWatch(context)
        self.contexts.append(context)
        return context

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def __getattr__(self, name):
        return getattr(self._chromium, name)


@pytest.fixture
def browser(chromium):
    """Chromium for one test; console errors on any page it opened fail the test."""
    watched = WatchedBrowser(chromium)
    yield watched
    errors = []
    for context in watched.contexts:
        context.close()
        errors += context.console_watch.errors
    assert not errors, f"browser console errors on the portal's pages: {errors}"


# Origins served by the portal in this test run; console errors elsewhere (an identity
# provider's own pages) are not the portal's to answer for.
PORTAL_ORIGINS: set[str] = set()


def _buffered(app):
    """Read each response body whole (and close it) before Werkzeug writes to the socket.

    When the browser drops a connection mid-response (it navigated away), Werkzeug's server
    can skip closing the body, leaving a static file open; with warnings as errors that fails
    whichever test happens to run when it is collected.
    """

    def wsgi(environ, start_response):
        body = app(environ, start_response)
        try:
            return [b"".join(body)]
        finally:
            if hasattr(body, "close"):
                body.close()

    return wsgi


class LiveServer:
    """The app served by Werkzeug in a thread, on 127.0.0.1 and a port the OS picks."""

    def __init__(self, app):
        self.app = app
        self.server = make_server("127.0.0.1", 0, _buffered(app), threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        PORTAL_ORIGINS.add(self.url)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture
def live_server_for():
    """Serve an app built by the test (``with live_server_for(app) as server:``)."""
    servers = []

    def start(app):
        server = LiveServer(app).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture
def live_server(app, live_server_for):
    return live_server_for(app)


# Reports Content-Security-Policy violations as console errors, whatever the browser itself logs.
# Init scripts run outside the page's policy.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile || document.location.href}:${event.lineNumber}`);
}, true);
"""


class ConsoleWatch:
    """Collects console errors and uncaught exceptions of every page of a browser context.

    Each tab the context opens is watched from its first request, polling pages included, for
    as long as the test runs.
    """

    def __init__(self, context):
        self.errors: list[str] = []
        context.add_init_script(REPORT_CSP_VIOLATIONS)
        context.on("page", self.watch)

    def watch(self, page):
        page.on("console", lambda message: self.on_console(page, message))
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))

    def on_console(self, page, message):
        url = message.location.get("url") or page.url
        if message.type != "error" or not any(url.startswith(o) for o in PORTAL_ORIGINS):
            return
        if message.text.startswith("Failed to load resource") and url == page.url:
            return  # the page itself answered 4xx on purpose (a refused login, a 404 page)
        self.errors.append(f"{page.url}: {message.text}")


@pytest.fixture
def browser_context(browser):
    """A fresh browser context (laptop size); its console is watched like every other."""
    return browser.new_context(viewport={"width": 1280, "height": 860})


@pytest.fixture
def page(browser_context):
    """A fresh browser tab, watched like every tab of its context."""
    page = browser_context.new_page()
    page.set_default_timeout(10_000)
    return page


@pytest.fixture
def shot(page):
    """Save a screenshot of the current page as test-artifacts/screenshots/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(name: str, target=None, full_page=True):
        path = ARTIFACTS / f"{name}.png"
        (target or page).screenshot(path=str(path), full_page=full_page)
        return path

    return take


def log_in(page, base_url, username, password, method=None):
    """Fill and send the login form the way a person would."""
    page.goto(base_url + "/login")
    if method:
        page.get_by_label(method).check()
    # Found by name, not by their words: the login page may be in any language.
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password)
    page.locator("form[action='/login'] button[type=submit]").click()
    page.wait_for_load_state()  # the page logged in to (or the refusal), fully loaded


def open_user_menu(page, name):
    """Open the menu under the person's name in the navigation bar.

    Before the page's scripts are ready the name is a plain link to the account page (a person
    clicking that early lands there); waiting makes the menu the thing the test opens.
    """
    toggle = page.get_by_role("button", name=name)
    toggle.wait_for()  # on the page that has the menu, not the one being left
    page.locator("html.js-ready").wait_for(state="attached")
    toggle.click()
