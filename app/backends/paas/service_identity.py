"""The orchestrator's service identity (ORCHESTRATOR_SERVICE_IDENTITY): the portal's own login
at an identity provider, for the orchestrator's calls made in its name (local and LDAP
accounts have no token of their own): a static token, or access tokens from a
client-credentials grant (RFC 6749, section 4.4), kept with the app until near expiry.

The issuer is found through the same discovery code as people's logins (``oidc.load_metadata``:
the document must name the configured issuer), and the grant goes through Authlib. Every call
has an overall deadline and a size cap (``provider_calls``) and verifies TLS certificates
(requests' default, never switched off here).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta

import requests
from authlib.common.errors import AuthlibBaseError
from flask import current_app
from flask_babel import gettext as _

from app.auth import oidc
from app.auth.errors import ProviderError, TokenUnavailable
from app.auth.provider_calls import BoundedOAuth2Session
from app.clock import utcnow
from app.errors import ConfigurationError
from app.extension_points import StateKey

log = logging.getLogger(__name__)

# (connect, read) seconds for discovery and for the grant.
DEFAULT_TIMEOUT = (5, 10)
# A token is renewed this long before the issuer says it expires, so that a call never
# leaves with a token that dies on the way.
RENEWAL_MARGIN = timedelta(seconds=60)
# Lifetime assumed when the issuer does not say (expires_in is only recommended).
DEFAULT_LIFETIME = timedelta(seconds=300)
_SETTING = "ORCHESTRATOR_SERVICE_IDENTITY"
# Where the app keeps its one ServiceIdentity, so that a grant is shared until near expiry.
_KEPT = StateKey("service identity")
_kept_lock = threading.Lock()


class ServiceTokenUnavailable(TokenUnavailable):
    """The issuer could not be reached, or answered with something unusable."""

    def __init__(self, message: str | None = None):
        super().__init__(
            message
            or _("The portal could not obtain its own login for the orchestrator; try again later.")
        )


class ServiceTokenRefused(ServiceTokenUnavailable):
    """The issuer refused the grant (wrong client secret, scope not allowed...)."""

    def __init__(self):
        super().__init__(
            _(
                "The portal could not obtain its own login for the orchestrator: its identity "
                "provider refused it. Tell the portal's operators."
            )
        )


class ServiceIdentity:
    """Access tokens for the portal itself, from ``settings``: ``{"token": ...}`` (a static
    token), or ``{"issuer", "client_id", "client_secret", "scope"?}`` for a grant.

    Thread-safe: one grant at a time, its token shared until RENEWAL_MARGIN before it expires.
    Raises ConfigurationError for incomplete settings or an issuer reached over plain HTTP.
    """

    def __init__(self, settings: Mapping, timeout: tuple[float, float] = DEFAULT_TIMEOUT):
        self.settings = dict(settings)
        self._static = str(settings["token"]) if settings.get("token") else None
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at: datetime | None = None
        if self._static:
            return
        try:
            issuer, client_id = str(settings["issuer"]), str(settings["client_id"])
            secret = str(settings["client_secret"])
        except KeyError as missing:
            raise ConfigurationError(f"{_SETTING} needs {missing} (or a static token).") from None
        oidc.check_issuer_url(issuer, f"The issuer of {_SETTING}")
        self.scope = settings.get("scope") or None
        self.provider = oidc.Provider(
            name="portal-service",
            label="the portal's own identity provider",
            issuer=issuer,
            client_id=client_id,
            client_secret=secret,
            scopes=self.scope or "",
            timeout=timeout,
        )
        self._discovery = oidc.standalone_client(self.provider)

    def access_token(self) -> str:
        """A token valid for RENEWAL_MARGIN at least. Raises ServiceTokenRefused when the
        issuer refuses the grant, ServiceTokenUnavailable when it cannot be used."""
        if self._static:
            return self._static
        with self._lock:
            now = utcnow()
            if self._token is None or self._expires_at - RENEWAL_MARGIN <= now:
                self._token, lifetime = self._grant()
                self._expires_at = now + lifetime
            return self._token

    def _grant(self) -> tuple[str, timedelta]:
        provider = self.provider
        try:
            endpoint = oidc.load_metadata(provider, self._discovery).get("token_endpoint")
        except ProviderError as error:
            log.error("Service identity: discovery at %s failed: %s", provider.issuer, error)
            raise ServiceTokenUnavailable() from None
        if not isinstance(endpoint, str) or not endpoint:
            log.error("Service identity: %s names no token endpoint", provider.issuer)
            raise ServiceTokenUnavailable()
        with BoundedOAuth2Session(
            client_id=provider.client_id,
            client_secret=provider.client_secret,
            scope=self.scope,
            default_timeout=provider.timeout,
        ) as session:
            try:
                answer = session.fetch_token(endpoint, grant_type="client_credentials")
            except (requests.ConnectionError, requests.Timeout) as error:
                log.error("Service identity: %s unreachable: %r", provider.issuer, error)
                raise ServiceTokenUnavailable() from None
            except AuthlibBaseError as error:
                log.error("Service identity: %s refused the grant: %s", provider.issuer, error)
                raise ServiceTokenRefused() from None
            except (requests.RequestException, ValueError) as error:
                log.error("Service identity: unusable answer from %s: %r", provider.issuer, error)
                raise ServiceTokenUnavailable() from None
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            log.error("Service identity: %s granted no access token", provider.issuer)
            raise ServiceTokenUnavailable()
        return token, _lifetime(answer.get("expires_in"))


def _lifetime(expires_in) -> timedelta:
    try:
        seconds = float(expires_in)
    except (TypeError, ValueError):
        return DEFAULT_LIFETIME
    return timedelta(seconds=seconds) if seconds > 0 else DEFAULT_LIFETIME


def configured() -> bool:
    """Whether a service identity is set up (ORCHESTRATOR_SERVICE_IDENTITY)."""
    return bool(current_app.config.get(_SETTING))


def service_identity() -> ServiceIdentity:
    """The portal's service identity, kept with the app so that its token is granted once
    and shared until near expiry.

    Raises ConfigurationError when the setting is missing or incomplete.
    """
    settings = current_app.config.get(_SETTING)
    if not settings:
        raise ConfigurationError(f"{_SETTING} is not set.")
    extensions = current_app.extensions
    with _kept_lock:
        kept = extensions.get(_KEPT)
        # Settings changed since (an operator's reload): a grant for the old client is useless.
        if kept is None or kept.settings != dict(settings):
            kept = extensions[_KEPT] = ServiceIdentity(settings)
        return kept
