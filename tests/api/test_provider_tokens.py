"""People who log in through an identity provider may call the API with that provider's access
token (a real OIDC provider, oidc-provider-mock, issues them)."""

import time

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from sqlalchemy import select

from app.auth import provider_tokens
from app.auth.models import User
from app.auth.operations import set_active
from app.auth.tokens import access_token_for
from app.extensions import db
from tests.api.conftest import publish_templates


@pytest.fixture
def oidc_app(make_app, oidc_provider):
    provider_tokens._remembered.clear()
    app = make_app(OIDC_PROVIDERS=[oidc_provider.config()], LAUNCHES_PER_MINUTE=0)
    publish_templates(app)
    return app


def _logged_in_token(app, oidc_provider, person: str) -> str:
    oidc_provider.log_in(app.test_client(), person)
    with app.app_context():
        user = db.session.scalar(select(User).where(User.subject == oidc_provider.sub(person)))
        return access_token_for(user)


def _get(app, path, token):
    return app.test_client().get(path, headers={"Authorization": f"Bearer {token}"})


def test_a_providers_token_of_someone_who_logged_in_opens_the_api(oidc_app, oidc_provider):
    token = _logged_in_token(oidc_app, oidc_provider, "grace")
    answer = _get(oidc_app, "/api/v1/templates", token)
    assert answer.status_code == 200, answer.get_json()
    assert "Set-Cookie" not in answer.headers
    launched = oidc_app.test_client().post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "test-notebook", "parameters": {"jupyter_password": "x"}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert launched.status_code == 200


def test_a_token_the_provider_no_longer_answers_for_is_refused(oidc_app, oidc_provider):
    token = _logged_in_token(oidc_app, oidc_provider, "grace")
    oidc_provider.revoke_tokens("grace")
    provider_tokens._remembered.clear()  # what was learnt in the last minute is kept a minute
    assert _get(oidc_app, "/api/v1/templates", token).status_code == 401


def test_a_disabled_persons_provider_token_is_refused(oidc_app, oidc_provider):
    token = _logged_in_token(oidc_app, oidc_provider, "grace")
    with oidc_app.app_context():
        user = db.session.scalar(select(User).where(User.subject == oidc_provider.sub("grace")))
        set_active(user, False)
    assert _get(oidc_app, "/api/v1/templates", token).status_code == 401


def test_a_made_up_token_and_a_forged_jwt_are_refused(oidc_app, oidc_provider):
    assert _get(oidc_app, "/api/v1/templates", "not-a-token").status_code == 401
    key = RSAKey.generate_key(2048)
    forged = jwt.encode(
        {"alg": "RS256", "kid": "forged"},
        {
            "iss": oidc_provider.issuer,
            "aud": "portal-test-client",
            "sub": oidc_provider.sub("grace"),
            "exp": int(time.time()) + 600,
        },
        key,
    )
    answer = _get(oidc_app, "/api/v1/templates", forged)
    assert answer.status_code == 401
    assert answer.get_json()["type"].endswith("/problems/unauthenticated")


def _tokens_issued_to_the_portal(oidc_provider, person: str) -> dict:
    """The provider's answer to the portal's client for ``person``: an ID token (with the
    nonce the portal always sends) and an access token, as a login receives them."""
    import requests

    from tests.fixtures.oidc_provider import CLIENT_ID, CLIENT_SECRET

    redirect = "http://localhost/login/oidc/mock/callback"
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect,
        "scope": "openid profile",
        "nonce": "a-login-nonce",
        "state": "a-state",
    }
    authorize = requests.Request("GET", oidc_provider.url + "/oauth2/authorize", params=query)
    callback = oidc_provider.sign_in(authorize.prepare().url, person)
    answer = requests.post(
        oidc_provider.url + "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": oidc_provider.query_of(callback)["code"],
            "redirect_uri": redirect,
        },
        auth=(CLIENT_ID, CLIENT_SECRET),
        timeout=5,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_id_token_issued_to_the_portal_is_refused_while_its_access_token_works(
    oidc_app, oidc_provider
):
    _logged_in_token(oidc_app, oidc_provider, "grace")
    issued = _tokens_issued_to_the_portal(oidc_provider, "grace")

    refused = _get(oidc_app, "/api/v1/templates", issued["id_token"])
    again = _get(oidc_app, "/api/v1/templates", issued["id_token"])  # remembered, same words
    accepted = _get(oidc_app, "/api/v1/templates", issued["access_token"])

    assert refused.status_code == again.status_code == 401
    assert refused.get_json()["detail"].startswith("This is an ID token")
    assert "access tokens only" in again.get_json()["detail"]
    assert accepted.status_code == 200, accepted.get_json()


def test_a_jwt_typed_as_an_access_token_is_not_taken_for_an_id_token():
    assert provider_tokens._is_id_token({"typ": "at+jwt"}, {"nonce": "n", "sub": "s"}) is False
    assert provider_tokens._is_id_token({"typ": "JWT"}, {"sub": "s", "scope": "openid"}) is False
    assert provider_tokens._is_id_token({"typ": "JWT"}, {"sub": "s", "at_hash": "h"}) is True
    assert provider_tokens._is_id_token({}, {"sub": "s", "typ": "ID"}) is True
