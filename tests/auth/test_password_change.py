"""A local account changes its own password on the Account page, under the login rules."""

from app.auth import local
from tests.conftest import post_form

OLD = "correct horse battery"
NEW = "a brand new passphrase"


def change(client, current=OLD, new=NEW, repeated=None):
    return post_form(
        client,
        "/account/",
        "/account/password",
        {
            "current_password": current,
            "new_password": new,
            "repeated": NEW if repeated is None and new == NEW else (repeated or new),
        },
    )


def test_the_account_page_of_a_local_account_offers_a_password_change(people, client):
    people.login_as("user")
    page = client.get("/account/").get_data(as_text=True)
    assert 'action="/account/password"' in page and "Current password" in page
    assert "At least 12 characters" in page


def test_a_changed_password_logs_in_and_the_old_one_no_longer_does(people, client, app):
    people.create("ada")
    assert people.login("ada").status_code == 302
    response = change(client)
    assert response.status_code == 302
    assert "Your password is changed" in client.get("/account/").get_data(as_text=True)
    other = app.test_client()
    assert people.login("ada", OLD, client=other).status_code == 401
    assert people.login("ada", NEW, client=other).status_code == 302


def test_a_wrong_current_password_changes_nothing_and_says_so_beside_the_field(people, client, app):
    people.create("ada")
    people.login("ada")
    response = change(client, current="not my password at all")
    assert response.status_code == 401
    page = response.get_data(as_text=True)
    assert "That is not your current password." in page
    with app.app_context():
        assert local.authenticate("ada", OLD)


def test_a_too_short_new_password_is_refused_with_the_rule(people, client, app):
    people.create("ada")
    people.login("ada")
    response = change(client, new="short", repeated="short")
    assert response.status_code == 400
    assert "Choose a password of at least 12 characters." in response.get_data(as_text=True)
    with app.app_context():
        assert local.authenticate("ada", OLD)


def test_two_different_new_passwords_are_refused(people, client):
    people.create("ada")
    people.login("ada")
    response = change(client, new=NEW, repeated=NEW + "!")
    assert response.status_code == 400
    assert "The two new passwords differ" in response.get_data(as_text=True)


def test_changing_the_password_ends_the_other_sessions_and_keeps_this_one(people, client, app):
    people.create("ada")
    people.login("ada")
    laptop = app.test_client()
    people.login("ada", client=laptop)
    assert laptop.get("/deployments/").status_code == 200
    change(client)
    assert laptop.get("/deployments/").status_code == 302
    assert client.get("/deployments/").status_code == 200


def test_guessing_the_current_password_is_throttled_like_a_login(people, client, make_app):
    people.create("ada")
    people.login("ada")
    for _ in range(5):
        assert change(client, current="a wrong guess here").status_code == 401
    response = change(client)
    assert response.status_code == 429
    assert "Too many failed attempts" in response.get_data(as_text=True)


def test_the_command_line_applies_the_same_rule(app, monkeypatch):
    from tests.auth.test_cli import run

    monkeypatch.setenv("SHORT_PW", "short")
    result = run(app, "create", "ada", "--password-env", "SHORT_PW")
    assert result.exit_code != 0
    assert "Choose a password of at least 12 characters." in result.output
