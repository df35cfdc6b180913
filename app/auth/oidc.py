"""Login through OpenID Connect providers: authorization code flow with PKCE, nonce and state.

Each application gets its own Authlib registry (kept in ``app.extensions``), so that providers
configured for one app never leak into another built in the same process.
"""

import logging
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.base_client import MismatchingStateError, OAuthError
from authlib.integrations.flask_client import FlaskIntegration, FlaskOAuth2App
from flask import Flask, Response, abort, current_app, request, session
from flask_babel import gettext as _
from joserfc.errors import JoseError

from app.auth.errors import (
    ProviderError,
    no_renewal,
    not_answering,
    unusable_answer,
    unverifiable,
)
from app.auth.identity import Identity
from app.auth.provider_calls import BoundedOAuth, BoundedOAuth2App, BoundedOAuth2Session
from app.errors import ConfigurationError
from app.extension_points import StateKey

log = logging.getLogger(__name__)

_PROVIDERS = StateKey("OIDC providers")
DEFAULT_SCOPES = "openid profile email offline_access"
DEFAULT_GROUPS_CLAIM = "groups"
DEFAULT_TIMEOUT = 10
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# Error codes are echoed to the person only when they look like the RFC 6749 codes.
_ERROR_CODE_RE = re.compile(r"^[a-z_]{1,40}$")
_LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


@dataclass(frozen=True)
class Provider:
    name: str
    label: str
    issuer: str
    client_id: str
    client_secret: str = ""
    scopes: str = DEFAULT_SCOPES
    groups_claim: str = DEFAULT_GROUPS_CLAIM
    timeout: float | tuple[float, float] = DEFAULT_TIMEOUT

    @property
    def discovery_url(self) -> str:
        return self.issuer.rstrip("/") + "/.well-known/openid-configuration"


def init_oidc(app: Flask) -> None:
    """Register every provider of ``OIDC_PROVIDERS`` with a registry private to ``app``.

    Raises ConfigurationError for an incomplete or unsafe provider entry.
    """
    providers = [_provider_from_config(entry) for entry in app.config["OIDC_PROVIDERS"] or ()]
    names = [p.name for p in providers]
    if len(set(names)) != len(names):
        raise ConfigurationError("OIDC_PROVIDERS: two providers share a name; names must differ.")
    registry = BoundedOAuth(app)
    for provider in providers:
        registry.register(
            provider.name,
            client_id=provider.client_id,
            client_secret=provider.client_secret,
            server_metadata_url=provider.discovery_url,
            client_kwargs={
                "scope": provider.scopes,
                "code_challenge_method": "S256",
                "default_timeout": provider.timeout,
            },
        )
    app.extensions[_PROVIDERS] = {
        "providers": {p.name: p for p in providers},
        "registry": registry,
    }


def _provider_from_config(entry: dict) -> Provider:
    name = str(entry.get("name", ""))
    if not _NAME_RE.match(name):
        raise ConfigurationError(
            f"OIDC_PROVIDERS: provider name {name!r} must be lower-case letters, digits, "
            "'-' or '_' (it appears in URLs)."
        )
    for key in ("issuer", "client_id"):
        if not entry.get(key):
            raise ConfigurationError(f"OIDC_PROVIDERS: provider {name!r} needs {key!r}.")
    issuer = str(entry["issuer"])
    check_issuer_url(issuer, f"OIDC_PROVIDERS: the issuer of {name!r}")
    scopes = entry.get("scopes") or DEFAULT_SCOPES
    if isinstance(scopes, list | tuple):
        scopes = " ".join(scopes)
    if "openid" not in scopes.split():
        raise ConfigurationError(f"OIDC_PROVIDERS: the scopes of {name!r} must include openid.")
    timeout = entry.get("timeout") or DEFAULT_TIMEOUT
    return Provider(
        name=name,
        label=str(entry.get("label") or name),
        issuer=issuer,
        client_id=str(entry["client_id"]),
        client_secret=str(entry.get("client_secret") or ""),
        scopes=scopes,
        groups_claim=str(entry.get("groups_claim") or DEFAULT_GROUPS_CLAIM),
        timeout=tuple(timeout) if isinstance(timeout, list | tuple) else float(timeout),
    )


def check_issuer_url(issuer: str, what: str) -> None:
    """Raises ConfigurationError unless ``issuer`` is an https:// URL (``what`` names it).

    Plain HTTP would expose codes and tokens; it is tolerated only on this machine.
    """
    parts = urlsplit(issuer)
    if parts.scheme != "https" and not (
        parts.scheme == "http" and parts.hostname in _LOOPBACK_HOSTS
    ):
        raise ConfigurationError(f"{what} must be an https:// URL, not {issuer!r}.")


def standalone_client(provider: Provider) -> FlaskOAuth2App:
    """An Authlib client for ``provider`` outside the login registry (the portal's own
    identity), for ``load_metadata``: it keeps the discovery document once fetched."""
    return BoundedOAuth2App(
        FlaskIntegration(provider.name),
        provider.name,
        client_id=provider.client_id,
        client_secret=provider.client_secret,
        server_metadata_url=provider.discovery_url,
        client_kwargs={"default_timeout": provider.timeout},
    )


def _state() -> dict:
    return current_app.extensions[_PROVIDERS]


def enabled_providers() -> list[Provider]:
    """The configured providers, in configuration order."""
    return list(_state()["providers"].values())


def find_provider(name: str) -> Provider | None:
    return _state()["providers"].get(name)


def get_provider(name: str) -> Provider:
    """The provider called ``name``; aborts with 404 when there is none."""
    provider = find_provider(name)
    if provider is None:
        abort(404)
    return provider


def _client(provider: Provider):
    return _state()["registry"].create_client(provider.name)


def ready_client(provider: Provider):
    """The provider's OAuth client with its checked discovery document loaded.

    Raises ProviderError when the provider is unreachable or its document is unusable.
    """
    client = _client(provider)
    load_metadata(provider, client)
    return client


def load_metadata(provider: Provider, client) -> dict:
    """Fetch (once) and check the provider's discovery document.

    Raises ProviderError when the provider is unreachable or its document is unusable.
    """
    try:
        metadata = client.load_server_metadata()
    except (requests.ConnectionError, requests.Timeout) as error:
        log.warning("OIDC provider %s unreachable: %s", provider.name, error)
        raise not_answering(provider.label) from None
    except (requests.RequestException, ValueError) as error:
        log.warning("OIDC provider %s discovery failed: %s", provider.name, error)
        raise unusable_answer(provider.label) from None
    # A document naming another issuer would let that issuer's tokens pass as this one's.
    if str(metadata.get("issuer", "")).rstrip("/") != provider.issuer.rstrip("/"):
        log.error(
            "OIDC provider %s: discovery names issuer %r, configured %r",
            provider.name,
            metadata.get("issuer"),
            provider.issuer,
        )
        client.server_metadata.clear()
        raise unusable_answer(provider.label)
    return metadata


def begin_login(provider: Provider, redirect_uri: str) -> Response:
    """Redirect the browser to the provider's authorization page.

    State, nonce and PKCE verifier are kept in the session. Raises ProviderError when the
    provider cannot be reached.
    """
    client = _client(provider)
    load_metadata(provider, client)
    return client.authorize_redirect(redirect_uri)


def complete_login(provider: Provider) -> tuple[Identity, dict]:
    """Check the provider's answer on the callback and return who logged in with the tokens.

    Raises ProviderError when the provider refused, the state or ID token does not check out,
    or the provider cannot be reached.
    """
    client = _client(provider)
    if request.args.get("error"):
        raise _refusal(provider, client)
    load_metadata(provider, client)
    try:
        token = client.authorize_access_token()
    except MismatchingStateError:
        raise ProviderError(
            _(
                "The login could not be verified (it may have expired or been started in "
                "another tab). Please try again."
            )
        ) from None
    except OAuthError as error:
        log.warning("OIDC provider %s token endpoint: %s", provider.name, error)
        raise ProviderError(
            _(
                "The identity provider %(provider)s did not accept the login. Please try again.",
                provider=provider.label,
            )
        ) from None
    except (requests.ConnectionError, requests.Timeout) as error:
        log.warning("OIDC provider %s unreachable at the token step: %s", provider.name, error)
        raise not_answering(provider.label) from None
    except (requests.RequestException, JoseError, AuthlibBaseError, ValueError) as error:
        log.warning("OIDC provider %s sent an unusable login: %r", provider.name, error)
        raise unverifiable(provider.label) from None
    claims = token.pop("userinfo", None)
    # Authlib checks the ID token (signature, issuer, audience, expiry, and the nonce it sent
    # because "openid" is always in the scopes) only when one came back; without an ID token
    # nothing ties the login to this browser, so it is required.
    if not claims or not claims.get("sub"):
        log.warning("OIDC provider %s answered without a usable ID token", provider.name)
        raise unverifiable(provider.label)
    claims = dict(claims)
    if _claim(claims, provider.groups_claim) is None:
        # The signed ID token wins; userinfo only fills in what it left out.
        claims = {**_userinfo_claims(provider, client, token, claims["sub"]), **claims}
    return identity_from_claims(provider, claims), dict(token)


def _refusal(provider: Provider, client) -> ProviderError:
    """The message for an error answer; the provider's own words only for a login we started.

    Without a matching state, anyone could send a link that shows their text on our page.
    """
    state = request.args.get("state")
    framework = client.framework
    if state and framework.get_state_data(session, state) is not None:
        framework.clear_state_data(session, state)
        description = " ".join(request.args.get("error_description", "").split())[:300]
        if description:
            return ProviderError(
                _("The identity provider refused the login: %(said)s", said=description)
            )
    code = request.args.get("error", "")
    if _ERROR_CODE_RE.match(code):
        return ProviderError(
            _(
                "The identity provider %(provider)s refused the login (%(code)s).",
                provider=provider.label,
                code=code,
            )
        )
    return ProviderError(
        _("The identity provider %(provider)s refused the login.", provider=provider.label)
    )


def _userinfo_claims(provider: Provider, client, token: dict, subject: str) -> dict:
    """Claims from the userinfo endpoint, for providers that leave groups out of the ID token.

    Returns {} when the endpoint is missing or fails: the login stands without groups.
    """
    if not client.server_metadata.get("userinfo_endpoint"):
        return {}
    try:
        claims = dict(client.userinfo(token=token))
    except (requests.RequestException, AuthlibBaseError, ValueError) as error:
        log.warning("OIDC provider %s userinfo failed: %s", provider.name, error)
        return {}
    # OIDC Core 5.3.2: userinfo for another subject must not be used.
    if claims.get("sub") != subject:
        log.warning("OIDC provider %s userinfo is about another subject", provider.name)
        return {}
    return claims


def _claim(claims: dict, name: str):
    """The claim ``name``: a literal key first ("wlcg.groups"), else a dotted path."""
    if name in claims:
        return claims[name]
    value = claims
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def groups_from_claims(claims: dict, groups_claim: str) -> tuple[str, ...]:
    """The group names in ``groups_claim``, kept as the provider wrote them, without repeats.

    Accepts a list or a single string (some providers send one group unwrapped).
    """
    value = _claim(claims, groups_claim)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return ()
    seen: dict[str, None] = {}
    for item in value:
        if isinstance(item, str) and item.strip():
            seen.setdefault(item.strip(), None)
    return tuple(seen)


def identity_from_claims(provider: Provider, claims: dict) -> Identity:
    subject = str(claims["sub"])
    return Identity(
        provider=provider.name,
        subject=subject,
        username=str(claims.get("preferred_username") or claims.get("email") or subject),
        display_name=str(claims.get("name") or ""),
        email=str(claims.get("email") or ""),
        groups=groups_from_claims(claims, provider.groups_claim),
    )


def refresh_tokens(provider_name: str, refresh_token: str) -> dict:
    """Exchange ``refresh_token`` at the provider's token endpoint for new tokens.

    Returns the token answer (without "refresh_token" when the provider does not rotate it).
    Raises ProviderError when the provider is unknown, unreachable or refuses.
    """
    provider = find_provider(provider_name)
    if provider is None:
        raise ProviderError(
            _("The identity provider %(provider)s is no longer configured.", provider=provider_name)
        )
    metadata = load_metadata(provider, _client(provider))
    # A bare session, so that no scope is sent: the refreshed token keeps the granted scope.
    with BoundedOAuth2Session(
        client_id=provider.client_id,
        client_secret=provider.client_secret,
        default_timeout=provider.timeout,
    ) as oauth_session:
        try:
            oauth_session.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
        except (requests.ConnectionError, requests.Timeout) as error:
            log.warning("OIDC provider %s unreachable for refresh: %s", provider.name, error)
            raise not_answering(provider.label) from None
        except (requests.RequestException, AuthlibBaseError, ValueError, KeyError) as error:
            log.info("OIDC provider %s refused a refresh: %s", provider.name, error)
            raise no_renewal(provider.label) from None
        # Authlib adds the refresh token we sent when none came back; leave that to the caller.
        answer = dict(oauth_session.token or {})
    if answer.get("refresh_token") == refresh_token:
        answer.pop("refresh_token")
    if not answer.get("access_token"):
        raise no_renewal(provider.label)
    return answer
