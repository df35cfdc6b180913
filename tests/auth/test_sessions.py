"""Login sessions end on the server: logout, password reset, disable, time, or the person."""

from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from app.auth import logins
from app.auth.models import UserSession
from app.clock import utcnow
from app.extensions import db
from tests.conftest import csrf_from

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Mobile Safari/537.36"
)


def log_out(client) -> None:
    page = client.get("/catalogue/").get_data(as_text=True)
    client.post("/logout", data={"csrf_token": csrf_from(page)})


def replay(app, cookie: str):
    """A request from someone who copied the session cookie."""
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    return thief.get("/deployments/")


def session_rows(app, user_id: int) -> list[UserSession]:
    with app.app_context():
        rows = db.session.scalars(select(UserSession).where(UserSession.user_id == user_id)).all()
        db.session.expunge_all()
        return rows


def shift_session(app, user_id: int, **columns) -> None:
    with app.app_context():
        db.session.execute(
            update(UserSession).where(UserSession.user_id == user_id).values(**columns)
        )
        db.session.commit()


def test_a_cookie_captured_before_logout_is_dead_afterwards(people, client, app):
    user_id = people.login_as("user")
    captured = client.get_cookie("session").value
    assert replay(app, captured).status_code == 200
    log_out(client)
    response = replay(app, captured)
    assert response.status_code == 302 and response.headers["Location"].startswith("/login")
    assert session_rows(app, user_id) == []


def test_an_oidc_login_ends_for_good_at_logout(make_app, oidc_provider):
    app = make_app(OIDC_PROVIDERS=[oidc_provider.config()])
    client = app.test_client()
    oidc_provider.log_in(client, "ada")
    captured = client.get_cookie("session").value
    assert replay(app, captured).status_code == 200
    log_out(client)
    assert replay(app, captured).status_code == 302


def test_a_password_reset_ends_every_session_of_that_user(people, client, app):
    people.create("ada")
    people.login("ada")
    other = app.test_client()
    people.login("ada", client=other)
    result = app.test_cli_runner().invoke(args=["users", "reset-password", "ada"])
    assert result.exit_code == 0, result.output
    assert client.get("/deployments/").status_code == 302
    assert other.get("/deployments/").status_code == 302


def test_disabling_a_user_ends_their_sessions_and_keeps_them_out(people, client, app):
    user_id = people.create("ada")
    people.login("ada")
    result = app.test_cli_runner().invoke(args=["users", "disable", "ada"])
    assert result.exit_code == 0, result.output
    assert client.get("/deployments/").status_code == 302
    assert session_rows(app, user_id) == []
    assert people.login("ada").status_code == 401


def test_a_session_ends_after_its_absolute_lifetime_however_busy(people, client, app):
    user_id = people.login_as("user")
    (row,) = session_rows(app, user_id)
    lifetime = timedelta(hours=app.config["SESSION_ABSOLUTE_LIFETIME_HOURS"])
    assert row.expires_at - row.created_at == lifetime
    shift_session(app, user_id, last_seen_at=utcnow() - timedelta(minutes=2))
    assert client.get("/deployments/").status_code == 200
    # Use moves "last seen" but never the absolute end.
    (used,) = session_rows(app, user_id)
    assert used.last_seen_at > row.last_seen_at and used.expires_at == row.expires_at
    shift_session(app, user_id, expires_at=utcnow() - timedelta(seconds=1))
    assert client.get("/deployments/").status_code == 302
    assert session_rows(app, user_id) == []


def test_inactivity_is_judged_on_the_server_not_only_by_the_cookie(people, client, app):
    user_id = people.login_as("user")
    idle = timedelta(minutes=app.config["SESSION_LIFETIME_MINUTES"], seconds=1)
    shift_session(app, user_id, last_seen_at=utcnow() - idle)
    response = client.get("/deployments/")
    assert response.status_code == 302
    assert "Your session has expired" in client.get("/login").get_data(as_text=True)


def test_last_seen_is_written_at_most_once_a_minute_and_never_by_polling(people, client, app):
    user_id = people.login_as("user")
    (first,) = session_rows(app, user_id)
    client.get("/deployments/")
    assert session_rows(app, user_id)[0].last_seen_at == first.last_seen_at
    earlier = utcnow() - timedelta(seconds=app.config["SESSION_TOUCH_SECONDS"] + 1)
    shift_session(app, user_id, last_seen_at=earlier)
    assert client.get("/deployments/rows", headers={"HX-Request": "true"}).status_code == 200
    assert session_rows(app, user_id)[0].last_seen_at == earlier
    client.get("/deployments/")
    assert session_rows(app, user_id)[0].last_seen_at > earlier


def test_the_database_holds_a_digest_of_the_token_not_the_token(people, client, app):
    user_id = people.login_as("user")
    with client.session_transaction() as session:
        token = session[logins.SESSION_KEY]
    (row,) = session_rows(app, user_id)
    assert token not in row.token_digest and len(row.token_digest) == 64


def test_a_person_sees_where_they_are_logged_in_and_ends_the_other_sessions(people, app):
    people.create("ada")
    laptop, phone = app.test_client(), app.test_client()
    laptop.environ_base["HTTP_USER_AGENT"] = FIREFOX
    phone.environ_base.update(HTTP_USER_AGENT=PHONE, REMOTE_ADDR="127.0.0.9")
    people.login("ada", client=laptop)
    people.login("ada", client=phone)
    page = laptop.get("/account/").get_data(as_text=True)
    assert "Firefox on Linux" in page and "Chrome on Android" in page
    assert "127.0.0.9" in page and "a local account" in page
    assert page.count("This browser") == 1
    response = laptop.post("/account/sessions/end-others", data={"csrf_token": csrf_from(page)})
    assert "Ended 1 other session." in laptop.get(response.headers["Location"]).get_data(
        as_text=True
    )
    assert phone.get("/deployments/").status_code == 302
    assert laptop.get("/deployments/").status_code == 200


def test_a_person_ends_one_session_but_cannot_end_someone_elses(people, app):
    ada_id, bob_id = people.create("ada"), people.create("bob")
    laptop, phone, bobs = app.test_client(), app.test_client(), app.test_client()
    for who, client in (("ada", laptop), ("ada", phone), ("bob", bobs)):
        people.login(who, client=client)
    phone_session = max(r.id for r in session_rows(app, ada_id))
    (bob_session,) = (r.id for r in session_rows(app, bob_id))
    token = csrf_from(laptop.get("/account/").get_data(as_text=True))
    laptop.post(f"/account/sessions/{bob_session}/end", data={"csrf_token": token})
    assert bobs.get("/deployments/").status_code == 200
    laptop.post(f"/account/sessions/{phone_session}/end", data={"csrf_token": token})
    assert phone.get("/deployments/").status_code == 302
    assert laptop.get("/deployments/").status_code == 200


def test_expired_sessions_are_purged_at_the_next_login(people, client, app):
    user_id = people.login_as("user", username="ada")
    shift_session(app, user_id, expires_at=utcnow() - timedelta(seconds=1))
    other = people.create("bob")
    people.login("bob", client=app.test_client())
    assert session_rows(app, user_id) == [] and len(session_rows(app, other)) == 1


@pytest.mark.parametrize(
    ("agent", "summary"),
    [
        (FIREFOX, "Firefox on Linux"),
        (PHONE, "Chrome on Android"),
        (
            "Mozilla/5.0 (Windows NT 10.0) AppleWebKit Chrome/126.0 Safari/537 Edg/126.0",
            "Edge on Windows",
        ),
        ("curl/8.5.0", "curl"),
        ("", "Unknown browser"),
    ],
)
def test_user_agents_are_summarised_for_people(agent, summary):
    assert logins.summarise_user_agent(agent) == summary


def test_authenticated_pages_are_not_stored_by_caches(login_as, client):
    assert "no-store" not in client.get("/login").headers.get("Cache-Control", "")
    login_as("user")
    for path in ("/catalogue/", "/deployments/", "/account/"):
        assert "no-store" in client.get(path).headers.get("Cache-Control", ""), path


def test_the_health_check_of_someone_logged_in_asks_the_database_one_question(
    app, login_as, client
):
    login_as("user")
    seen = []
    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    answer = client.get("/healthz")
    assert answer.status_code == 200 and len(seen) == 1
    # Nothing asked who is logged in: the cookie's word keeps the answer from caches.
    assert answer.headers["Cache-Control"] == "no-store"
    assert "no-store" not in app.test_client().get("/healthz").headers.get("Cache-Control", "")


def test_head_on_the_login_page_answers_like_get(client):
    head, get = client.head("/login"), client.get("/login")
    assert head.status_code == get.status_code == 200
    assert head.headers["Content-Type"] == get.headers["Content-Type"]
    assert head.get_data() == b""


def test_the_account_page_shows_at_most_a_hundred_sessions(people, client, app):
    user_id = people.login_as("user")
    with app.app_context():
        # Last used well before this browser logged in, however slow the login was: the
        # browser's own session is then the most recent, whatever the machine's pace.
        now = utcnow()
        earlier = now - timedelta(minutes=10)
        db.session.add_all(
            UserSession(
                token_digest=f"{n:064x}",
                user_id=user_id,
                provider="local",
                address="127.0.0.1",
                user_agent="script",
                created_at=earlier,
                last_seen_at=earlier,
                expires_at=now + timedelta(days=1),
            )
            for n in range(logins.SHOWN_AT_MOST + 20)
        )
        db.session.commit()
    page = client.get("/account/").get_data(as_text=True)
    assert page.count("End this session") == logins.SHOWN_AT_MOST - 1
    assert "This browser" in page  # the most recently used comes first


def test_a_request_reads_the_person_their_roles_and_their_login_in_one_statement(
    people, client, app
):
    """Every page, poll and partial first asks who is there; on a busy host each round trip to
    the database counts, so the account, its granted roles and the login record come together."""
    from flask_login import current_user
    from sqlalchemy import event

    people.login_as("operator")
    seen = []

    def executed(_connection, _cursor, statement, *_args):
        seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", executed)
    try:
        with client:
            assert client.get("/healthz").status_code == 200
            assert "operator" in current_user.roles  # the grant, already loaded
            reads = list(seen)
    finally:
        event.remove(engine, "before_cursor_execute", executed)
    login_reads = [sql for sql in reads if "user_sessions" in sql or "role_grants" in sql]
    assert len(login_reads) == 1, reads
    assert "role_grants" in login_reads[0] and "user_sessions" in login_reads[0]
