"""A local account can be given an e-mail address after it was created, or have it changed
or removed: by an admin on its page and with ``flask users email``. An address that could not
be one is refused in words (in both languages) and nothing typed is lost; an account whose
address comes from its directory or identity provider says where to change it."""

import html as markup
import re

import pytest

from app.auth.identity import Identity
from app.auth.local import find_local_user
from app.auth.operations import record_identity
from tests.conftest import csrf_from


@pytest.fixture
def admin(people):
    return people.login_as("admin", username="root")


def words(html: str) -> str:
    return " ".join(markup.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def email_of(app, username) -> str:
    with app.app_context():
        return find_local_user(username).email


def save(client, target, address, headers=None):
    page = f"/admin/users/{target}"
    token = csrf_from(client.get(page, headers=headers or {}).get_data(as_text=True))
    return client.post(
        f"{page}/email",
        data={"csrf_token": token, "email": address},
        headers=headers or {},
        follow_redirects=True,
    )


def test_an_admin_gives_a_local_account_an_address_then_removes_it(admin, people, client, app):
    target = people.create("ada")

    saved = words(save(client, target, "  ada@example.org ").get_data(as_text=True))

    assert "Notices for ada now go to ada@example.org." in saved
    assert email_of(app, "ada") == "ada@example.org"
    removed = words(save(client, target, "").get_data(as_text=True))
    assert "ada has no e-mail address now." in removed
    assert email_of(app, "ada") == ""


@pytest.mark.parametrize(
    ("headers", "sentence"),
    [
        ({}, "“ada at example” is not an e-mail address"),
        ({"Accept-Language": "it"}, "“ada at example” non è un indirizzo e-mail"),
    ],
)
def test_an_address_that_could_not_be_one_is_refused_in_words_and_kept_in_the_field(
    admin, people, client, app, headers, sentence
):
    target = people.create("ada", email="old@example.org")

    page = save(client, target, "ada at example", headers).get_data(as_text=True)

    assert sentence in words(page)
    assert 'value="ada at example"' in page
    assert email_of(app, "ada") == "old@example.org"


def test_an_identity_providers_account_keeps_the_address_it_brings(admin, client, app):
    with app.app_context():
        user = record_identity(Identity("oidc", "sub-9", "eve", "Eve", "eve@iam", ("g",)))
        target = user.id

    page = client.get(f"/admin/users/{target}").get_data(as_text=True)
    assert 'id="account-email"' not in page
    refused = words(save(client, target, "other@example.org").get_data(as_text=True))
    assert "eve's e-mail address comes from oidc at each login" in refused


def test_flask_users_email_sets_changes_and_refuses_in_words(people, app):
    people.create("ada")
    runner = app.test_cli_runner()

    done = runner.invoke(args=["users", "email", "ada", "ada@example.org"])
    assert done.exit_code == 0 and "Notices for ada now go to ada@example.org." in done.output
    assert email_of(app, "ada") == "ada@example.org"
    bad = runner.invoke(args=["users", "email", "ada", "ada@\nexample.org"])
    assert bad.exit_code == 1 and "is not an e-mail address" in bad.output
    assert email_of(app, "ada") == "ada@example.org"
    cleared = runner.invoke(args=["users", "email", "ada", ""])
    assert cleared.exit_code == 0 and email_of(app, "ada") == ""
