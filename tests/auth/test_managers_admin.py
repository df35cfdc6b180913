"""Admins see on the Users page which groups each person manages (named, and by membership),
and name or remove a group's managers there, as ``flask groups managers`` does."""

import pytest
from sqlalchemy import select

from app.auth.models import GroupManager, User
from app.extensions import db
from tests.conftest import csrf_from


@pytest.fixture
def admin(people):
    return people.login_as("admin", username="root")


def post(client, data):
    token = csrf_from(client.get("/admin/users/").get_data(as_text=True))
    return client.post(
        "/admin/users/managers", data={"csrf_token": token, **data}, follow_redirects=True
    )


def named(app) -> list[tuple[str, str, str]]:
    with app.app_context():
        rows = db.session.execute(
            select(GroupManager.group_name, User.username, GroupManager.named_by)
            .join(User, User.id == GroupManager.user_id)
            .order_by(GroupManager.group_name)
        )
        return [tuple(row) for row in rows]


def test_an_admin_names_a_manager_and_the_row_shows_who_named_them(admin, people, client, app):
    people.create("ada")
    page = post(client, {"group": " physics ", "username": "ada", "action": "add"})
    text = page.get_data(as_text=True)
    assert "ada now manages physics." in text
    assert named(app) == [("physics", "ada", "root")]
    assert "named by root" in text
    again = post(client, {"group": "physics", "username": "ada", "action": "add"})
    assert "ada already managed physics." in again.get_data(as_text=True)
    assert len(named(app)) == 1


def test_managers_by_membership_are_shown_and_not_removed_here(admin, people, client, app):
    carol = people.create("carol")
    with app.app_context():
        db.session.get(User, carol).managed_by_membership = ["chemistry"]
        db.session.commit()
    assert "by membership" in client.get("/admin/users/").get_data(as_text=True)
    page = post(client, {"group": "chemistry", "username": "carol", "action": "remove"})
    assert "carol manages chemistry by membership of another group" in page.get_data(as_text=True)


def test_an_admin_removes_a_named_manager(admin, people, client, app):
    people.create("ada")
    post(client, {"group": "physics", "username": "ada", "action": "add"})
    page = post(client, {"group": "physics", "username": "ada", "action": "remove"})
    assert "ada no longer manages physics." in page.get_data(as_text=True)
    assert named(app) == []
    again = post(client, {"group": "physics", "username": "ada", "action": "remove"})
    assert "ada was not a manager of physics." in again.get_data(as_text=True)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"group": "", "username": "ada"}, "Type the name of the group."),
        ({"group": "physics", "username": "nobody"}, "No user is called nobody."),
        ({"group": "physics", "username": ""}, "Type the username of the manager."),
        ({"group": "no good!", "username": "ada"}, "is not a group name"),
        ({"group": "a\tb", "username": "ada"}, "must be a single line"),
    ],
)
def test_bad_input_is_refused_in_words_and_what_was_typed_comes_back(
    admin, people, client, app, data, said
):
    people.create("ada")
    page = post(client, {**data, "action": "add"})
    text = page.get_data(as_text=True)
    assert said in text
    assert named(app) == []
    if data["username"]:
        assert f'value="{data["username"]}"' in text


def test_the_same_username_at_two_providers_asks_which(admin, people, client, app):
    people.create("ada")
    with app.app_context():
        db.session.add(User(provider="ldap", subject="ada-ldap", username="ada"))
        db.session.commit()
    page = post(client, {"group": "physics", "username": "ada", "action": "add"})
    assert "Several accounts are called ada" in page.get_data(as_text=True)
    chosen = post(
        client, {"group": "physics", "username": "ada", "provider": "ldap", "action": "add"}
    )
    assert "ada now manages physics." in chosen.get_data(as_text=True)


def test_only_admins_name_managers(people, client, app):
    people.create("ada")
    people.login_as("operator")
    token = csrf_from(client.get("/catalogue/").get_data(as_text=True))
    answer = client.post(
        "/admin/users/managers",
        data={"csrf_token": token, "group": "physics", "username": "ada", "action": "add"},
    )
    assert answer.status_code == 403
    assert named(app) == []
