"""Identity-provider tokens kept for calls made on the user's behalf (the orchestrator needs them).

Access and refresh tokens are stored encrypted with Fernet: a copy of the database alone does
not let anyone act as our users.
"""

import base64
import logging
import time
from datetime import datetime, timedelta

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth import oidc
from app.auth.errors import ProviderError, TokenUnavailable
from app.auth.models import OAuthToken, User
from app.clock import utcnow
from app.errors import ConfigurationError
from app.extensions import db

log = logging.getLogger(__name__)

# Changing it changes the derived key, and so makes every stored token unreadable.
_KEY_INFO = b"research-portal oidc token encryption v1"


def _fernet() -> Fernet:
    configured = current_app.config.get("TOKEN_ENCRYPTION_KEY")
    if configured:
        try:
            return Fernet(configured)
        except (ValueError, TypeError):
            raise ConfigurationError(
                "TOKEN_ENCRYPTION_KEY must be a Fernet key (urlsafe base64 of 32 bytes); "
                "generate one with `python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())'`."
            ) from None
    secret = current_app.config["SECRET_KEY"]
    secret = secret if isinstance(secret, bytes) else str(secret).encode()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_KEY_INFO).derive(secret)
    return Fernet(base64.urlsafe_b64encode(key))


def _encrypt(value: str) -> str:
    return _fernet().encrypt(value.encode()).decode()


def _decrypt(value: str) -> str:
    """Raises InvalidToken when the key changed or the value was tampered with."""
    return _fernet().decrypt(value.encode()).decode()


def _expires_at(token: dict) -> datetime | None:
    seconds = token.get("expires_at")
    if seconds is None and token.get("expires_in") is not None:
        seconds = time.time() + float(token["expires_in"])
    if seconds is None:
        return None
    return utcnow() + timedelta(seconds=float(seconds) - time.time())


def _record_for(user: User) -> OAuthToken | None:
    return db.session.scalar(select(OAuthToken).where(OAuthToken.user_id == user.id))


def store_tokens(user: User, provider_name: str, token: dict) -> None:
    """Keep the tokens from a login (replacing any earlier ones of ``user``), encrypted."""
    record = _record_for(user)
    if record is None:
        record = OAuthToken(user_id=user.id)
        db.session.add(record)
    record.provider = provider_name
    record.refresh_token = None
    _write(record, token)
    db.session.commit()


def _write(record: OAuthToken, token: dict) -> None:
    record.access_token = _encrypt(token["access_token"])
    if token.get("refresh_token"):
        record.refresh_token = _encrypt(token["refresh_token"])
    record.expires_at = _expires_at(token)
    scope = token.get("scope")
    if scope is not None:
        record.scope = (" ".join(scope) if isinstance(scope, list | tuple) else str(scope))[:512]
    # Set by hand too: onupdate fires only when a column value really changed.
    record.updated_at = utcnow()


def drop_tokens(user: User) -> None:
    """Forget ``user``'s stored tokens (at logout)."""
    db.session.execute(db.delete(OAuthToken).where(OAuthToken.user_id == user.id))
    db.session.commit()


def _provider_label(name: str) -> str:
    provider = oidc.find_provider(name)
    return provider.label if provider else name


def _expired(record: OAuthToken) -> TokenUnavailable:
    return TokenUnavailable(
        _(
            "Your login with %(provider)s has expired; log in again to continue.",
            provider=_provider_label(record.provider),
        )
    )


def _fresh(record: OAuthToken) -> bool:
    if record.expires_at is None:
        return True  # the provider did not say; let the orchestrator judge
    margin = timedelta(seconds=current_app.config["OIDC_REFRESH_MARGIN_SECONDS"])
    return record.expires_at - utcnow() > margin


def access_token_for(user: User) -> str:
    """A valid access token for calls on ``user``'s behalf, renewed first if about to expire.

    Raises TokenUnavailable when there is none, it cannot be renewed, or it cannot be decrypted
    (the encryption key changed): the user has to log in again.
    """
    record = _record_for(user)
    if record is None:
        raise TokenUnavailable(
            _(
                "This needs a login through an identity provider; log out and log in with one "
                "to continue."
            )
        )
    try:
        if _fresh(record):
            return _decrypt(record.access_token)
        if not record.refresh_token:
            raise _expired(record)
        return _refresh(record)
    except InvalidToken:
        log.warning("Stored tokens of user %s cannot be decrypted; dropping them", user.id)
        error = _expired(record)
        drop_tokens(user)
        raise error from None


def _refresh(record: OAuthToken) -> str:
    """Renew the access token of ``record`` and store what the provider sent.

    Two workers may renew at once; with providers that rotate refresh tokens the slower one is
    refused. It then re-reads the row: if the other stored new tokens meanwhile, those are used.
    """
    used = (record.access_token, record.refresh_token)
    try:
        answer = oidc.refresh_tokens(record.provider, _decrypt(record.refresh_token))
    except ProviderError as error:
        db.session.refresh(record)
        if (record.access_token, record.refresh_token) != used and _fresh(record):
            return _decrypt(record.access_token)
        log.info("Refreshing the token of user %s failed: %s", record.user_id, error.message)
        raise _expired(record) from None
    _write(record, answer)
    db.session.commit()
    return answer["access_token"]
