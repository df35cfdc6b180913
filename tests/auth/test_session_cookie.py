"""Background (htmx) requests must not rewrite the session cookie behind a page's back."""

from flask import flash

from tests.conftest import csrf_from

HX = {"HX-Request": "true"}


def _session_cookie_set(response) -> bool:
    return any(h.startswith("session=") for h in response.headers.getlist("Set-Cookie"))


def test_pages_slide_the_session_but_polling_does_not(login_as, client):
    login_as("user")
    assert _session_cookie_set(client.get("/deployments/"))
    assert not _session_cookie_set(client.get("/deployments/rows", headers=HX))


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
