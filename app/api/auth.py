"""Who is calling the API: a personal access token in ``Authorization: Bearer``, and its scopes,
or an access token from one of the portal's identity providers (see ``auth.provider_tokens``).

The API never reads or writes the browser session: a cookie sent along is ignored, nothing is
stored in the session, and no login is recorded. The caller is kept in ``g.api_caller`` for the
request only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from flask import g, request
from flask_babel import gettext as _

from app.api.problems import Problem
from app.auth import access_tokens, provider_tokens, throttle
from app.auth.models import User
from app.i18n import speak_as


@dataclass(frozen=True)
class Caller:
    user: User
    scopes: frozenset[str]
    token_id: int | None


class RefusedToken(Problem):
    """A token was sent and refused: counted against the caller's address by ``authenticate``
    (a request without any token is not: it guesses nothing)."""


def _unauthenticated(detail: str) -> Problem:
    return RefusedToken(
        "unauthenticated",
        detail,
        headers={"WWW-Authenticate": 'Bearer realm="api", error="invalid_token"'},
    )


def authenticate() -> Caller:
    """The caller of this request; raises Problem "unauthenticated" without a valid token, or
    "too-many-attempts" when its address had too many tokens refused (see ``auth.throttle``).
    """
    address = request.remote_addr or ""
    try:
        throttle.refuse_throttled_api_address(address)
        return _authenticate()
    except RefusedToken:
        throttle.record_api_failure(address)
        raise
    except throttle.ApiThrottled as error:
        raise Problem(
            "too-many-attempts", error.message, headers={"Retry-After": str(error.retry_after)}
        ) from None


def _authenticate() -> Caller:
    header = request.headers.get("Authorization", "")
    scheme, _sep, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(
            "unauthenticated",
            _(
                "Send a personal access token as \u201cAuthorization: Bearer <token>\u201d; "
                "create one on your Account page."
            ),
            headers={"WWW-Authenticate": 'Bearer realm="api"'},
        )
    token = token.strip()
    if not token.startswith(access_tokens.PREFIX):
        # An identity provider's own access token: the person themself, so every scope.
        try:
            user = provider_tokens.user_for(token, request.remote_addr or "")
        except provider_tokens.NotAnAccessToken:
            raise _unauthenticated(
                _(
                    "This is an ID token, which tells the portal who logged in; the API takes "
                    "access tokens only. Send your identity provider's access token, or a "
                    "personal access token from your Account page."
                )
            ) from None
        if user is None:
            raise _unauthenticated(
                _(
                    "This token is not valid here: it is neither a personal access token nor a "
                    "current token of this portal's identity providers for someone who has "
                    "logged in to the portal."
                )
            )
        return Caller(user, frozenset(access_tokens.SCOPES), None)
    record = access_tokens.authenticate(token, request.remote_addr or "")
    if record is None:
        raise _unauthenticated(
            _("This token is not valid: it was revoked, it expired, or its account is disabled.")
        )
    return Caller(record.user, frozenset(record.scopes), record.id)


def caller() -> Caller:
    found = getattr(g, "api_caller", None)
    if found is None:
        found = g.api_caller = authenticate()
        speak_as(found.user)
    return found


def requires(scope: str):
    """Decorate an API view: the caller must present a token carrying ``scope``."""

    def decorate(view):
        @wraps(view)
        def checked(*args, **kwargs):
            if scope not in caller().scopes:
                raise Problem(
                    "missing-scope",
                    _("This token does not have the scope %(scope)s.", scope=scope),
                    extra={"required_scope": scope},
                    headers={
                        "WWW-Authenticate": (
                            f'Bearer realm="api", error="insufficient_scope", scope="{scope}"'
                        )
                    },
                )
            return view(*args, **kwargs)

        checked.required_scope = scope
        return checked

    return decorate
