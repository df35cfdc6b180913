import pytest
from sqlalchemy import select

from app.auth.models import User
from app.extensions import db
from tests.conftest import People, csrf_from


def test_a_researcher_logs_in_with_a_local_account_and_lands_in_the_catalogue(people, client):
    people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    response = people.login("ada")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    page = client.get("/catalogue/", follow_redirects=True).get_data(as_text=True)
    assert "Ada Lovelace" in page
    assert "Welcome, Ada Lovelace." in page


def test_a_wrong_password_and_an_unknown_user_get_the_same_message(people, client):
    people.create("ada")
    wrong = people.login("ada", "wrong password")
    unknown = people.login("nobody", "wrong password")
    assert wrong.status_code == unknown.status_code == 401
    for response in (wrong, unknown):
        assert "Unknown username or wrong password." in response.get_data(as_text=True)


def test_empty_fields_are_reported_beside_each_field(client):
    page = client.get("/login").get_data(as_text=True)
    response = client.post(
        "/login", data={"csrf_token": csrf_from(page), "username": "", "password": ""}
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Enter your username." in html and "Enter your password." in html


def test_a_login_post_without_csrf_token_is_refused_with_a_clear_page(people, client):
    people.create("ada")
    response = client.post("/login", data={"username": "ada", "password": "correct horse battery"})
    assert response.status_code == 400
    assert "The form had expired or was sent from elsewhere" in response.get_data(as_text=True)


def test_login_starts_a_fresh_session(people, client, app):
    people.create("ada")
    client.get("/login")
    with client.session_transaction() as session:
        session["planted"] = "by an attacker"
    people.login("ada")
    with client.session_transaction() as session:
        assert "planted" not in session
        assert session.permanent


def test_next_is_followed_only_within_the_site(people, client):
    people.create("ada")
    assert people.login("ada", next_url="/deployments/").headers["Location"] == "/deployments/"
    client.post(
        "/logout", data={"csrf_token": csrf_from(client.get("/catalogue/").get_data(as_text=True))}
    )
    for hostile in (
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example",
        "javascript:alert(1)",
    ):
        response = people.login("ada", next_url=hostile)
        assert response.headers["Location"] == "/", hostile
        client.post(
            "/logout",
            data={"csrf_token": csrf_from(client.get("/catalogue/").get_data(as_text=True))},
        )


def test_repeated_failures_lock_the_account_for_a_while(people, client, app):
    people.create("ada")
    for _ in range(app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]):
        assert people.login("ada", "guess").status_code == 401
    response = people.login("ada")  # even the right password waits
    assert response.status_code == 429
    assert "Too many failed attempts. Wait 15 minutes" in response.get_data(as_text=True)


def test_a_disabled_account_cannot_log_in(people, app):
    user_id = people.create("ada")
    with app.app_context():
        db.session.get(User, user_id).active = False
        db.session.commit()
    assert people.login("ada").status_code == 401


def test_logout_needs_a_post_and_ends_the_session(login_as, client):
    login_as("user")
    assert client.get("/logout").status_code == 405
    page = client.get("/catalogue/").get_data(as_text=True)
    response = client.post("/logout", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 302
    follow = client.get("/catalogue/")
    assert follow.status_code == 302 and follow.headers["Location"].startswith("/login")


def test_many_failures_from_one_address_lock_that_address_for_every_account(make_app):
    app = make_app(LOGIN_MAX_FAILURES_PER_ACCOUNT=100, LOGIN_MAX_FAILURES_PER_ADDRESS=3)
    people = People(app, app.test_client())
    people.create("ada")
    for name in ("x1", "x2", "x3"):
        assert people.login(name, "guess").status_code == 401
    response = people.login("ada")
    assert response.status_code == 429
    assert "Too many failed attempts" in response.get_data(as_text=True)
    # Another address is not affected.
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.99"
    assert People(app, other).login("ada").status_code == 302


@pytest.mark.real_password_hashing
def test_local_passwords_are_stored_as_argon2id_hashes_with_production_costs(people, app):
    people.create("ada")
    with app.app_context():
        stored = db.session.scalar(select(User.password_hash).where(User.username == "ada"))
    assert stored.startswith("$argon2id$") and "m=65536,t=3" in stored
    assert "correct horse battery" not in stored
    assert people.login("ada").status_code == 302
