"""Background (htmx) requests must not rewrite the session cookie behind a page's back."""

import time

from flask import flash

from tests.conftest import csrf_from

HX = {"HX-Request": "true"}


def _session_cookie_set(response) -> bool:
    return any(h.startswith("session=") for h in response.headers.getlist("Set-Cookie"))


def _later(monkeypatch, app) -> None:
    """Move the clock the cookie is signed by past SESSION_TOUCH_SECONDS."""
    now = time.time() + app.config["SESSION_TOUCH_SECONDS"] + 1
    monkeypatch.setattr(time, "time", lambda: now)


def test_pages_slide_the_session_but_polling_does_not(login_as, client, app, monkeypatch):
    login_as("user")
    _later(monkeypatch, app)
    assert not _session_cookie_set(client.get("/deployments/rows", headers=HX))
    assert _session_cookie_set(client.get("/deployments/"))


def test_a_page_leaves_a_cookie_signed_moments_ago_alone(login_as, client, app, monkeypatch):
    login_as("user")
    client.get("/deployments/")  # shows, and so takes from the session, the login's message
    before = client.get_cookie("session").value
    assert not _session_cookie_set(client.get("/deployments/"))
    _later(monkeypatch, app)
    assert _session_cookie_set(client.get("/deployments/"))
    assert client.get_cookie("session").value != before
    # Signed anew just now: the next page leaves it alone again.
    assert not _session_cookie_set(client.get("/deployments/"))


def test_a_poll_sent_before_logout_cannot_log_the_person_back_in(login_as, client, app):
    login_as("user")
    page = client.get("/catalogue/").get_data(as_text=True)
    # A second tab (same cookie) has a poll in flight while the first one logs out.
    other_tab = app.test_client()
    other_tab.set_cookie("session", client.get_cookie("session").value)
    client.post("/logout", data={"csrf_token": csrf_from(page)})
    late_poll = other_tab.get("/deployments/rows", headers=HX)
    # The login ended on the server: the poll is refused and sends the tab to the login page.
    assert late_poll.status_code == 401 and late_poll.headers["HX-Redirect"].startswith("/login")
    assert not _session_cookie_set(late_poll)
    assert client.get("/deployments/").status_code == 302


def test_a_background_request_that_changes_the_session_still_saves_it(make_app):
    app = make_app()

    @app.get("/test-flash")
    def flash_something():
        flash("Saved in the background.")
        return ""

    client = app.test_client()
    response = client.get("/test-flash", headers=HX)
    assert _session_cookie_set(response)
    with client.session_transaction() as saved:
        assert saved["_flashes"] == [("message", "Saved in the background.")]


def test_a_favicon_fetched_while_a_form_was_sent_cannot_drop_its_message(login_as, client, app):
    """The browser fetches the icon with the cookie from before the form; it answers last."""
    login_as("user")
    page = client.get("/notifications/").get_data(as_text=True)
    before = client.get_cookie("session").value
    client.post("/notifications/read-all", data={"csrf_token": csrf_from(page)})
    late_icon = app.test_client()
    late_icon.set_cookie("session", before)
    icon = late_icon.get("/static/img/logo.svg")
    icon.close()
    assert not _session_cookie_set(icon)
    image = late_icon.get("/deployments/", headers={"Sec-Fetch-Dest": "image"})
    assert not _session_cookie_set(image)
    assert "notifications marked read." in client.get("/notifications/").get_data(as_text=True)


def test_a_page_the_browser_navigates_to_still_slides_the_session(
    login_as, client, app, monkeypatch
):
    login_as("user")
    _later(monkeypatch, app)
    assert _session_cookie_set(client.get("/deployments/", headers={"Sec-Fetch-Dest": "document"}))
