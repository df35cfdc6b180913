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
