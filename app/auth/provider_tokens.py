"""Access tokens from a configured identity provider, accepted by the API for the people who log
in through that provider (as the orchestrator's own clients send them).

A JWT access token is checked locally: its issuer must be a configured provider, its signature
must verify against that provider's published keys, and its audience must name
``API_OIDC_AUDIENCE`` (default: the provider's client id); expiry is checked too. An opaque token
cannot be read, so the provider is asked (its userinfo endpoint): a token it answers for belongs
to the subject it names; its audience cannot be checked, which the README says. Either way the
token's subject must be a person who has logged in here, still active. Answers are kept a
minute per token (by digest), so that a busy script does not cost a provider call per request;
a token the provider refused is also remembered in the database and never asked about again
within the API window, and the provider calls are budgeted per address (``auth.throttle``).

Access tokens only: a provider's ID token says who logged in to the portal, is addressed to the
portal's client id and is often handed to other programs; it must not open the API. A JWT typed
``at+jwt`` is an access token; any other JWT carrying an ID token's own claims (``nonce``, which
the portal's logins always send, ``at_hash``, ``c_hash``, or Keycloak's ``typ: ID``) is refused
as ``NotAnAccessToken``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import threading
import time

import requests
from authlib.common.errors import AuthlibBaseError
from flask import current_app
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from sqlalchemy import select

from app.auth import oidc, throttle
from app.auth.errors import ProviderError
from app.auth.models import User
from app.extensions import db

log = logging.getLogger(__name__)
REMEMBER_SECONDS = 60
_remembered: dict[str, tuple[float, str, str | None]] = {}
_lock = threading.Lock()


ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")
ID_TOKEN_CLAIMS = ("nonce", "at_hash", "c_hash")
# A subject kept for a token found to be an ID token: never a person's.
_ID_TOKEN = object()


class NotAnAccessToken(Exception):
    """The token is a provider's ID token, not an access token."""


def user_for(token: str, address: str) -> User | None:
    """The active user ``token`` (a provider's access token, sent from ``address``) stands
    for, or None.

    Raises NotAnAccessToken for an ID token, ApiThrottled when the provider may not be asked
    about an unknown token now.
    """
    if not current_app.config["OIDC_PROVIDERS"]:
        return None
    key = hashlib.sha256(token.encode()).hexdigest()
    with _lock:
        kept = _remembered.get(key)
    if kept and kept[0] > time.monotonic():
        provider_name, subject = kept[1], kept[2]
    else:
        provider_name, subject = _identify(token, key, address)
        with _lock:
            if len(_remembered) > 10_000:
                _remembered.clear()
            _remembered[key] = (time.monotonic() + REMEMBER_SECONDS, provider_name, subject)
    if subject is _ID_TOKEN:
        raise NotAnAccessToken
    if subject is None:
        return None
    user = db.session.scalar(
        select(User).where(User.provider == provider_name, User.subject == subject)
    )
    return user if user is not None and user.active else None


def _identify(token: str, digest: str, address: str) -> tuple[str, str | None]:
    """(provider name, subject) of a valid token; subject None when it is not valid."""
    payload = _unverified_payload(token)
    if payload is not None:
        return _check_jwt(token, payload)
    providers = oidc.enabled_providers()
    if not providers or throttle.refused_lately(digest):
        return "", None
    throttle.take_provider_check(address)  # raises ApiThrottled when a budget is spent
    answered = 0
    for provider in providers:
        try:
            subject = _ask_userinfo(provider, token)
        except _Unanswered:
            continue
        if subject is not None:
            throttle.give_back_provider_check(address)
            return provider.name, subject
        answered += 1
    if answered == len(providers):  # every provider said no; an outage proves nothing
        throttle.remember_refused_token(digest)
    return "", None


def _unverified_payload(token: str) -> dict | None:
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError, RecursionError):
        return None
    return payload if isinstance(payload, dict) else None


def _is_id_token(header: dict, claims: dict) -> bool:
    """Whether a verified JWT is an ID token rather than an access token (module docstring)."""
    if str(header.get("typ", "")).lower() in ACCESS_TOKEN_TYPES:
        return False
    return any(name in claims for name in ID_TOKEN_CLAIMS) or claims.get("typ") == "ID"


def _check_jwt(token: str, payload: dict) -> tuple[str, str | None]:
    issuer = str(payload.get("iss", "")).rstrip("/")
    provider = next((p for p in oidc.enabled_providers() if p.issuer.rstrip("/") == issuer), None)
    if provider is None:
        return "", None
    audience = current_app.config["API_OIDC_AUDIENCE"] or provider.client_id
    try:
        client = oidc.ready_client(provider)
        keys = KeySet.import_key_set(client.fetch_jwk_set())
        decoded = jwt.decode(token, keys)
        claims = decoded.claims
        jwt.JWTClaimsRegistry(
            leeway=30,
            iss={"essential": True, "values": [provider.issuer, issuer]},
            aud={"essential": True, "values": [audience]},
            sub={"essential": True},
            exp={"essential": True},
        ).validate(claims)
    except (JoseError, ProviderError, requests.RequestException, ValueError) as error:
        log.info("Provider token from %s refused: %s", provider.name, error)
        return provider.name, None
    if _is_id_token(decoded.header, claims):
        log.info("An ID token from %s was sent as an access token: refused", provider.name)
        return provider.name, _ID_TOKEN
    return provider.name, str(claims["sub"])


class _Unanswered(Exception):
    """The provider could not be asked, or failed to answer."""


def _ask_userinfo(provider, token: str) -> str | None:
    """The subject ``provider`` names for ``token``; None when it refuses the token (or has no
    userinfo endpoint). Raises _Unanswered when it could not say."""
    try:
        client = oidc.ready_client(provider)
        if not client.server_metadata.get("userinfo_endpoint"):
            return None
        claims = client.userinfo(token={"access_token": token, "token_type": "Bearer"})
    except requests.HTTPError as error:
        status = error.response.status_code if error.response is not None else None
        if status in (400, 401, 403):
            return None
        raise _Unanswered from error
    except (ProviderError, requests.RequestException, AuthlibBaseError, ValueError) as error:
        raise _Unanswered from error
    subject = claims.get("sub") if isinstance(claims, dict) else None
    return str(subject) if subject else None
