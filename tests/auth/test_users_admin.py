"""Admins manage accounts in the browser: groups, roles, access and sessions."""

import pytest
from sqlalchemy import select

from app.auth.identity import Identity
from app.auth.local import find_local_user
from app.auth.models import UserSession
from app.auth.operations import record_identity
from app.extensions import db
from tests.conftest import csrf_from


@pytest.fixture
def admin(people):
    return people.login_as("admin", username="root")


def post(client, url, data, page="/admin/users/"):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, follow_redirects=True)


def user_id(app, username) -> int:
    with app.app_context():
        return find_local_user(username).id


def test_only_admins_reach_the_user_pages(people, client, app):
    people.login_as("operator")
    assert client.get("/admin/users/").status_code == 403
    target = people.create("ada")
    assert client.get(f"/admin/users/{target}").status_code == 403
    assert (
        post(
            client,
            f"/admin/users/{target}/groups",
            {"group": "x", "action": "add"},
            page="/catalogue/",
        ).status_code
        == 403
    )


def test_the_list_shows_accounts_and_finds_them_by_name(admin, people, client):
    people.create("ada", display_name="Ada Lovelace", email="ada@example.org")
    people.create("bob")
    page = client.get("/admin/users/").get_data(as_text=True)
    assert "Ada Lovelace" in page and ">bob<" in page and ">root<" in page
    found = client.get("/admin/users/?q=lovelace").get_data(as_text=True)
    assert "Ada Lovelace" in found and ">bob<" not in found
    assert "No user matches" in client.get("/admin/users/?q=zzz").get_data(as_text=True)


def test_an_admin_adds_and_removes_a_local_accounts_groups(admin, people, client, app):
    target = people.create("ada")
    page = f"/admin/users/{target}"
    added = post(client, f"{page}/groups", {"group": "gpu-users", "action": "add"}, page)
    assert "ada is now in gpu-users." in added.get_data(as_text=True)
    with app.app_context():
        assert find_local_user("ada").groups == ["gpu-users"]
    removed = post(client, f"{page}/groups", {"group": "gpu-users", "action": "remove"}, page)
    assert "ada is no longer in gpu-users." in removed.get_data(as_text=True)
    with app.app_context():
        assert find_local_user("ada").groups == []


def test_a_refused_group_name_is_explained_and_kept_in_the_field(admin, people, client):
    target = people.create("ada")
    page = f"/admin/users/{target}"
    html = post(client, f"{page}/groups", {"group": "two words", "action": "add"}, page).get_data(
        as_text=True
    )
    assert "&#39;two words&#39; is not a group name" in html
    assert 'value="two words"' in html


def test_directory_groups_are_shown_but_not_editable(admin, client, app):
    with app.app_context():
        grace = record_identity(Identity("ldap", "grace", "grace", groups=("hpc-users",))).id
    html = client.get(f"/admin/users/{grace}").get_data(as_text=True)
    assert "hpc-users" in html and "Add group" not in html
    answer = post(client, f"/admin/users/{grace}/groups", {"group": "x", "action": "add"})
    assert "come from ldap at each login" in answer.get_data(as_text=True)


def test_an_admin_grants_and_revokes_roles(admin, people, client, app):
    target = people.create("ada")
    page = f"/admin/users/{target}"
    post(client, f"{page}/roles", {"role": "operator", "action": "grant"}, page)
    with app.app_context():
        assert find_local_user("ada").is_operator
    post(client, f"{page}/roles", {"role": "operator", "action": "revoke"}, page)
    with app.app_context():
        assert not find_local_user("ada").is_operator


def test_an_admin_cannot_revoke_their_own_admin_role_or_disable_themselves(admin, client, app):
    page = f"/admin/users/{admin}"
    html = post(client, f"{page}/roles", {"role": "admin", "action": "revoke"}, page)
    assert "You cannot revoke your own admin role" in html.get_data(as_text=True)
    html = post(client, f"{page}/state", {"action": "disable"}, page)
    assert "You cannot disable your own account." in html.get_data(as_text=True)
    with app.app_context():
        assert find_local_user("root").is_admin and find_local_user("root").active


def test_disabling_in_the_browser_ends_the_accounts_sessions(admin, people, client, app):
    target = people.create("ada")
    ada = app.test_client()
    people.login("ada", client=ada)
    assert ada.get("/deployments/").status_code == 200
    page = f"/admin/users/{target}"
    html = post(client, f"{page}/state", {"action": "disable"}, page).get_data(as_text=True)
    assert "ada can no longer log in; their sessions have ended." in html
    assert ada.get("/deployments/").status_code == 302
    post(client, f"{page}/state", {"action": "enable"}, page)
    assert people.login("ada", client=ada).status_code == 302


def test_an_admin_sees_and_ends_a_users_session(admin, people, client, app):
    target = people.create("ada")
    ada = app.test_client()
    ada.environ_base["HTTP_USER_AGENT"] = "Mozilla/5.0 (Macintosh; Mac OS X 14) Firefox/128.0"
    people.login("ada", client=ada)
    page = f"/admin/users/{target}"
    assert "Firefox on macOS" in client.get(page).get_data(as_text=True)
    with app.app_context():
        session_id = db.session.scalar(select(UserSession.id).where(UserSession.user_id == target))
    post(client, f"{page}/sessions/{session_id}/end", {}, page)
    assert ada.get("/deployments/").status_code == 302


def test_an_unknown_user_id_gets_a_404(admin, client):
    assert client.get("/admin/users/99999").status_code == 404


def test_a_local_login_keeps_the_groups_an_admin_gave(people, app):
    target = people.create("ada")
    app.test_cli_runner().invoke(args=["users", "groups", "ada", "--add", "gpu-users"])
    people.login("ada")
    people.login("ada", client=app.test_client())
    with app.app_context():
        assert find_local_user("ada").groups == ["gpu-users"]
    assert target
