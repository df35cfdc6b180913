"""Personal access tokens: created on the Account page and with ``flask tokens create``, shown
once, stored as a digest, scoped, expiring, revocable, ended with the account; never a session."""

import re
from datetime import timedelta

from app.auth.access_tokens import AccessToken, digest
from app.auth.models import User
from app.auth.operations import set_active
from app.clock import use_clock, utcnow
from app.extensions import db
from tests.api.conftest import ALL_SCOPES
from tests.conftest import csrf_from

TOKEN_RE = re.compile(r"rcp_[A-Za-z0-9_-]{40,}")


def _tokens(app, user_id):
    with app.app_context():
        return db.session.query(AccessToken).filter_by(user_id=user_id).all()


def test_the_account_page_creates_a_token_shown_once_and_stored_as_a_digest(app, people, client):
    user_id = people.login_as(username="ada")
    page = client.get("/account/")
    assert b"Create a token" in page.data
    answer = client.post(
        "/account/tokens",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "name": "notebook script",
            "scopes": ["deployments:read", "templates:read"],
            "days": "30",
        },
    )
    assert answer.status_code == 201
    token = TOKEN_RE.search(answer.get_data(as_text=True)).group(0)
    [record] = _tokens(app, user_id)
    assert record.digest == digest(token) and token not in record.digest
    assert record.scopes == ["deployments:read", "templates:read"]
    again = client.get("/account/").get_data(as_text=True)
    assert token not in again and "notebook script" in again and record.hint in again
    used = app.test_client().get("/api/v1/templates", headers={"Authorization": f"Bearer {token}"})
    assert used.status_code == 200
    assert "127.0.0.1" in client.get("/account/").get_data(as_text=True)


def test_the_account_page_refuses_a_lifetime_over_the_maximum_and_keeps_the_values(
    app, people, client
):
    app.config["API_TOKEN_MAX_DAYS"] = 90
    people.login_as(username="ada")
    page = client.get("/account/")
    answer = client.post(
        "/account/tokens",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "name": "long",
            "scopes": ["quota:read"],
            "days": "400",
        },
    )
    assert answer.status_code == 400
    text = answer.get_data(as_text=True)
    assert "90 days at most" in text and 'value="long"' in text
    assert not TOKEN_RE.search(text)


def test_revoking_on_the_account_page_ends_the_token(app, people, client, callers):
    user_id = people.login_as(username="ada")
    token = callers.token_for(user_id)
    [record] = _tokens(app, user_id)
    page = client.get("/account/").get_data(as_text=True)
    client.post(f"/account/tokens/{record.id}/revoke", data={"csrf_token": csrf_from(page)})
    answer = app.test_client().get("/api/v1/quota", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401
    assert answer.get_json()["type"].endswith("/problems/unauthenticated")


def test_admins_list_and_revoke_a_users_tokens(app, people, client, callers):
    ada = callers("ada")
    people.login_as("admin", username="root")
    page = client.get(f"/admin/users/{ada.user_id}").get_data(as_text=True)
    [record] = _tokens(app, ada.user_id)
    assert record.hint in page
    client.post(
        f"/admin/users/{ada.user_id}/tokens/{record.id}/revoke",
        data={"csrf_token": csrf_from(page)},
    )
    assert ada.get("/api/v1/quota").status_code == 401


def test_flask_tokens_create_prints_the_token_alone_on_the_last_line(app, callers):
    ada_id = callers.user("ada")
    result = app.test_cli_runner().invoke(
        args=[
            "tokens",
            "create",
            "ada",
            "--name",
            "ci",
            "--scopes",
            "deployments:read,deployments:write",
            "--expires",
            "30d",
        ]
    )
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    assert TOKEN_RE.fullmatch(token)
    [record] = _tokens(app, ada_id)
    assert record.scopes == ["deployments:read", "deployments:write"]
    assert timedelta(days=29) < record.expires_at - utcnow() <= timedelta(days=30)


def test_flask_tokens_create_refuses_unknown_scopes_and_long_lifetimes(app, callers):
    callers.user("ada")
    runner = app.test_cli_runner()
    bad = runner.invoke(args=["tokens", "create", "ada", "--name", "x", "--scopes", "all"])
    assert bad.exit_code == 1 and "Unknown scope all" in bad.output
    long = runner.invoke(
        args=[
            "tokens",
            "create",
            "ada",
            "--name",
            "x",
            "--scopes",
            "quota:read",
            "--expires",
            "9999d",
        ]
    )
    assert long.exit_code == 1 and "365 days at most" in long.output


def test_a_missing_scope_is_403_naming_it(callers):
    reader = callers("ada", scopes=("deployments:read",))
    answer = reader.launch()
    assert answer.status_code == 403
    problem = answer.get_json()
    assert problem["type"].endswith("/problems/missing-scope")
    assert problem["required_scope"] == "deployments:write"
    assert reader.get("/api/v1/templates").status_code == 403
    assert reader.get("/api/v1/quota").status_code == 403
    assert reader.get("/api/v1/deployments").status_code == 200


def test_no_token_or_a_wrong_one_is_401(app, callers):
    client = app.test_client()
    answer = client.get("/api/v1/deployments")
    assert answer.status_code == 401
    assert answer.mimetype == "application/problem+json"
    assert "Bearer" in answer.headers["WWW-Authenticate"]
    wrong = client.get("/api/v1/deployments", headers={"Authorization": "Bearer rcp_nope"})
    assert wrong.status_code == 401


def test_an_expired_token_is_401(callers):
    ada = callers("ada")
    later = utcnow() + timedelta(days=31)
    with use_clock(lambda: later):
        assert ada.get("/api/v1/deployments").status_code == 401


def test_disabling_the_account_ends_its_tokens_for_good(app, callers):
    ada = callers("ada")
    with app.app_context():
        set_active(db.session.get(User, ada.user_id), False)
        set_active(db.session.get(User, ada.user_id), True)
    assert ada.get("/api/v1/deployments").status_code == 401


def test_the_api_sets_no_cookie_and_ignores_a_browser_session(app, people, client, callers):
    people.login_as(username="ada")
    # The logged-in browser's cookie alone does not open the API.
    assert client.get("/api/v1/deployments").status_code == 401
    ada = callers("bob")
    for answer in (
        ada.get("/api/v1/deployments"),
        ada.get("/api/v1/templates"),
        ada.launch(),
        ada.get("/api/v1/nothing-here"),
        app.test_client().get("/api/v1/quota"),
    ):
        assert "Set-Cookie" not in answer.headers, answer.headers


def test_the_api_needs_no_csrf_token(callers):
    ada = callers("ada")
    assert ada.launch().status_code == 201


def test_every_protected_route_needs_a_token_and_its_own_scope(app, callers):
    """Walks the OpenAPI document, so that a new route is covered as soon as it exists."""
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    ada = callers("ada")
    others = {
        scope: callers(f"only-{scope.replace(':', '-')}", scopes=(scope,)) for scope in ALL_SCOPES
    }
    checked = 0
    for path, operations in document["paths"].items():
        url = "/api/v1" + path.replace("{deployment_id}", "1").replace("{slug}", "test-notebook")
        for method, operation in operations.items():
            if method == "parameters" or operation["security"] == []:
                continue
            [scope] = operation["security"][0]["token"]
            anonymous = app.test_client().open(url, method=method.upper(), json={})
            assert anonymous.status_code == 401, (method, path)
            for other_scope, caller in others.items():
                if other_scope != scope:
                    answer = caller.client.open(
                        url, method=method.upper(), json={}, headers=caller.headers()
                    )
                    assert answer.status_code == 403, (method, path, other_scope)
                    assert answer.get_json()["required_scope"] == scope
            checked += 1
    assert checked >= 8 and ada.token
