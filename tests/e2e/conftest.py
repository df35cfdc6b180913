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
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: `make test` installs it (as root).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


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


@pytest.fixture
def page(browser):
    """A fresh browser tab; console errors (such as CSP violations) fail the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors = []

    def on_console(message):
        url = message.location.get("url") or page.url
        if message.type != "error" or not any(url.startswith(o) for o in PORTAL_ORIGINS):
            return
        if message.text.startswith("Failed to load resource") and url == page.url:
            return  # the page itself answered 4xx on purpose (a refused login, a 404 page)
        errors.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(10_000)
    yield page
    context.close()
    assert not errors, f"browser console errors on the portal's pages: {errors}"


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
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in", exact=True).click()
