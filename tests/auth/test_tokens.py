"""Tokens kept for calls on the user's behalf: encrypted at rest, renewed at the real provider."""

from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select, text

from app.auth import oidc, tokens
from app.auth.errors import ProviderError, TokenUnavailable
from app.auth.models import OAuthToken, User
from app.clock import utcnow
from app.extensions import db
from tests.conftest import csrf_from

EXPIRED = "Your login with Mock IAM has expired; log in again to continue."


@pytest.fixture
def oidc_app(make_app, oidc_provider):
    return make_app(OIDC_PROVIDERS=[oidc_provider.config()])


@pytest.fixture
def logged_in(oidc_app, oidc_provider):
    """Log ``person`` in through the provider; returns the portal's test client."""

    def log_in(person: str = "ada", app=None):
        client = (app or oidc_app).test_client()
        assert oidc_provider.log_in(client, person).status_code == 302
        return client

    return log_in


def user(subject: str) -> User:
    return db.session.scalar(select(User).where(User.subject == subject))


def stored_columns(subject: str) -> tuple[str, str]:
    row = db.session.execute(
        text(
            "SELECT t.access_token, t.refresh_token FROM oauth_tokens t "
            "JOIN users u ON u.id = t.user_id WHERE u.subject = :subject"
        ),
        {"subject": subject},
    ).one()
    return row.access_token, row.refresh_token


def expire_soon(subject: str, seconds: int = 10) -> None:
    record = db.session.scalar(select(OAuthToken).join(User).where(User.subject == subject))
    record.expires_at = utcnow() + timedelta(seconds=seconds)
    db.session.commit()


def test_the_stored_access_token_is_accepted_by_the_provider(oidc_app, oidc_provider, logged_in):
    logged_in("ada")
    with oidc_app.app_context():
        access_token = tokens.access_token_for(user(oidc_provider.sub("ada")))
    answer = oidc_provider.userinfo(access_token)
    assert answer.status_code == 200 and answer.json()["sub"] == oidc_provider.sub("ada")


def test_tokens_are_stored_encrypted_at_rest(oidc_app, oidc_provider, logged_in):
    logged_in("ada")
    with oidc_app.app_context():
        access_token = tokens.access_token_for(user(oidc_provider.sub("ada")))
        stored_access, stored_refresh = stored_columns(oidc_provider.sub("ada"))
    assert access_token not in stored_access
    assert stored_refresh and stored_access != stored_refresh
    # Fernet tokens: readable only with the key.
    assert stored_access.startswith("gAAAAA") and stored_refresh.startswith("gAAAAA")


def test_an_explicit_encryption_key_is_used_when_configured(make_app, oidc_provider, logged_in):
    key = Fernet.generate_key()
    app = make_app(OIDC_PROVIDERS=[oidc_provider.config()], TOKEN_ENCRYPTION_KEY=key.decode())
    logged_in("ada", app=app)
    with app.app_context():
        access_token = tokens.access_token_for(user(oidc_provider.sub("ada")))
        stored_access, _ = stored_columns(oidc_provider.sub("ada"))
    assert Fernet(key).decrypt(stored_access.encode()).decode() == access_token


def test_an_expiring_token_is_renewed_and_the_provider_accepts_the_new_one(
    oidc_app, oidc_provider, logged_in
):
    logged_in("ada")
    sub = oidc_provider.sub("ada")
    with oidc_app.app_context():
        old = tokens.access_token_for(user(sub))
        expire_soon(sub)
        new = tokens.access_token_for(user(sub))
        record = db.session.scalar(select(OAuthToken).where(OAuthToken.user_id == user(sub).id))
        assert record.expires_at > utcnow() + timedelta(minutes=30)
        # Fresh now, so asking again does not renew it again.
        assert tokens.access_token_for(user(sub)) == new
    assert new != old
    assert oidc_provider.userinfo(new).status_code == 200
    # The provider retires the access token a refresh replaces.
    assert not oidc_provider.userinfo(old).ok


def test_a_rotated_refresh_token_replaces_the_stored_one(oidc_app, logged_in, monkeypatch):
    logged_in("ada")
    sent = []

    def rotating_provider(provider_name, refresh_token):
        sent.append(refresh_token)
        return {
            "access_token": f"access-{len(sent)}",
            "refresh_token": f"refresh-{len(sent)}",
            "expires_in": 3600,
        }

    monkeypatch.setattr(oidc, "refresh_tokens", rotating_provider)
    with oidc_app.app_context():
        ada = user("ada-0001")
        expire_soon("ada-0001")
        assert tokens.access_token_for(ada) == "access-1"
        expire_soon("ada-0001")
        assert tokens.access_token_for(ada) == "access-2"
    assert sent[1] == "refresh-1"


def test_a_refused_renewal_asks_the_person_to_log_in_again(oidc_app, oidc_provider, logged_in):
    sub = oidc_provider.sub("linus")
    logged_in("linus")
    oidc_provider.revoke_tokens("linus")
    with oidc_app.app_context():
        expire_soon(sub)
        with pytest.raises(TokenUnavailable, match=EXPIRED):
            tokens.access_token_for(user(sub))


def test_a_token_without_refresh_token_expires_with_a_clear_message(
    oidc_app, oidc_provider, logged_in
):
    logged_in("ada")
    with oidc_app.app_context():
        record = db.session.scalar(select(OAuthToken))
        record.refresh_token = None
        db.session.commit()
        expire_soon("ada-0001", seconds=-5)
        with pytest.raises(TokenUnavailable, match=EXPIRED):
            tokens.access_token_for(user("ada-0001"))


def test_a_renewal_lost_to_another_worker_uses_the_tokens_that_worker_stored(
    oidc_app, logged_in, monkeypatch
):
    logged_in("ada")

    def refused_because_the_other_worker_rotated_it(provider_name, refresh_token):
        with db.engine.begin() as other_worker:
            other_worker.execute(
                db.update(OAuthToken).values(
                    access_token=tokens._encrypt("from-the-other-worker"),
                    refresh_token=tokens._encrypt("rotated-by-the-other-worker"),
                    expires_at=utcnow() + timedelta(hours=1),
                )
            )
        raise ProviderError("invalid_grant")

    monkeypatch.setattr(oidc, "refresh_tokens", refused_because_the_other_worker_rotated_it)
    with oidc_app.app_context():
        expire_soon("ada-0001")
        assert tokens.access_token_for(user("ada-0001")) == "from-the-other-worker"


def test_a_changed_secret_key_makes_the_person_log_in_again(oidc_app, oidc_provider, logged_in):
    logged_in("ada")
    oidc_app.config["SECRET_KEY"] = "rotated-" + "y" * 40
    with oidc_app.app_context():
        with pytest.raises(TokenUnavailable, match=EXPIRED):
            tokens.access_token_for(user("ada-0001"))
        assert db.session.scalar(select(OAuthToken)) is None


def test_a_local_user_has_no_token_and_is_told_how_to_get_one(app, people):
    user_id = people.create("ada")
    needs_provider = "needs a login through an identity provider"
    with app.app_context(), pytest.raises(TokenUnavailable, match=needs_provider):
        tokens.access_token_for(db.session.get(User, user_id))


def test_a_new_login_replaces_the_stored_tokens(oidc_app, oidc_provider, logged_in):
    logged_in("ada")
    with oidc_app.app_context():
        first = tokens.access_token_for(user("ada-0001"))
    logged_in("ada")
    with oidc_app.app_context():
        assert db.session.scalar(select(db.func.count(OAuthToken.id))) == 1
        assert tokens.access_token_for(user("ada-0001")) != first


def test_logout_drops_the_stored_tokens(oidc_app, logged_in):
    client = logged_in("ada")
    with oidc_app.app_context():
        assert db.session.scalar(select(OAuthToken)) is not None
    page = client.get("/catalogue/").get_data(as_text=True)
    assert client.post("/logout", data={"csrf_token": csrf_from(page)}).status_code == 302
    with oidc_app.app_context():
        assert db.session.scalar(select(OAuthToken)) is None
        with pytest.raises(TokenUnavailable):
            tokens.access_token_for(user("ada-0001"))
