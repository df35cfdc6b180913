"""Whose name the portal calls the orchestrator in, and with which groups.

People who logged in through an identity provider call with their own access token (renewed
as needed). Local and LDAP accounts have none: for them the portal calls with its configured
service identity (``ORCHESTRATOR_SERVICE_IDENTITY``) and enforces itself who owns what, unless
the backend takes the portal's word for who is calling (its ``trusts_every_login``
capability): then everyone calls it as themselves. Which server a backend reaches is its own
choice.
"""

from __future__ import annotations

import threading

from babel.lists import format_list
from flask import current_app
from flask_babel import get_locale
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth import oidc
from app.auth.models import OAuthToken, User
from app.auth.service_identity import ServiceIdentity
from app.auth.tokens import access_token_for
from app.backends import registry
from app.backends.base import Backend, Caller
from app.deployments.errors import DeploymentError
from app.deployments.models import Deployment
from app.errors import ConfigurationError
from app.extension_points import StateKey
from app.extensions import db

SERVICE = "service"
# The backend that made every deployment before there were several.
DEFAULT = "paas"
_SERVICE_KEY = StateKey("service identity")
_service_lock = threading.Lock()


def uses_own_token(user: User) -> bool:
    """Whether ``user`` calls the orchestrator with their own identity-provider token."""
    return oidc.find_provider(user.provider) is not None


def trusts_every_login(backend: str = DEFAULT) -> bool:
    """Whether ``backend`` takes the portal's word for who is calling (its capability)."""
    return registry.capabilities(backend).trusts_every_login


def calls_as_self(user: User, backend: str = DEFAULT) -> bool:
    """Whether ``user``'s calls to ``backend`` are made in their own name: with their own
    token, or at a backend that trusts every portal login."""
    return trusts_every_login(backend) or uses_own_token(user)


def caller_of(user: User) -> Caller:
    return Caller(user.provider, user.subject, tuple(user.groups or ()))


def identity_of(user: User, backend: str = DEFAULT) -> str:
    """The key of the identity ``user``'s calls to ``backend`` are made with: "user:<id>" for
    calls in their own name, "service" for the portal's service identity; prefixed with the
    backend's name ("im:user:<id>") but for the first backend, whose keys were there first."""
    key = f"user:{user.id}" if calls_as_self(user, backend) else SERVICE
    return key if backend == DEFAULT else f"{backend}:{key}"


def split_key(key: str) -> tuple[str, str]:
    """(backend, identity) of a key made by ``identity_of``."""
    name, _sep, rest = key.partition(":")
    if registry.known(name) and rest and name != DEFAULT:
        return name, rest
    return DEFAULT, key


def launch_blocker(user: User, backend: str = DEFAULT) -> str | None:
    """Why ``user`` cannot launch at ``backend`` at all, as a sentence for them; ``None`` when
    they can: it takes them as themselves, or it has an identity to act for them with."""
    if calls_as_self(user, backend):
        return None
    if registry.capabilities(backend).acts_for_anyone:
        return None
    labels = [str(provider.label) for provider in oidc.enabled_providers()]
    if not labels:
        return _(
            "Launching needs a login the orchestrator accepts, and this portal is not set up to "
            "launch for accounts like yours. Your administrators can enable it by configuring "
            "a service identity."
        )
    return _(
        "Launching needs a login the orchestrator accepts, and this portal is not set up to "
        "launch for accounts like yours. Log out and log in with %(providers)s to launch. "
        "Your administrators can enable it by configuring a service identity.",
        providers=format_list(labels, style="or", locale=get_locale() or "en"),
    )


def backend_for(user: User, timeout=None, name: str = DEFAULT) -> Backend:
    """Backend ``name`` acting as ``user`` (use it in a ``with`` block).

    ``timeout`` defaults to ORCHESTRATOR_TIMEOUT. Raises DeploymentError when ``user`` has no
    way to call it (see ``launch_blocker``).
    """
    timeout = timeout if timeout is not None else current_app.config["ORCHESTRATOR_TIMEOUT"]
    if calls_as_self(user, name):
        return registry.backend_for(name, caller_of(user), lambda: access_token_for(user), timeout)
    blocker = launch_blocker(user, name)
    if blocker:
        raise DeploymentError(blocker)
    return service_backend(timeout, name)


def service_backend(timeout=None, name: str = DEFAULT) -> Backend:
    """Backend ``name`` acting as the portal's service identity."""
    timeout = timeout if timeout is not None else current_app.config["ORCHESTRATOR_TIMEOUT"]
    return registry.backend_for(name, None, lambda: service_identity().access_token(), timeout)


def service_identity() -> ServiceIdentity:
    """The portal's service identity (ORCHESTRATOR_SERVICE_IDENTITY), kept with the app so
    that its token is granted once and shared until near expiry.

    Raises ConfigurationError when the setting is missing or incomplete.
    """
    settings = current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY")
    if not settings:
        raise ConfigurationError("ORCHESTRATOR_SERVICE_IDENTITY is not set.")
    extensions = current_app.extensions
    with _service_lock:
        kept = extensions.get(_SERVICE_KEY)
        # Settings changed since (an operator's reload): a grant for the old client is useless.
        if kept is None or kept.settings != dict(settings):
            kept = extensions[_SERVICE_KEY] = ServiceIdentity(settings)
        return kept


def groups_for(user: User) -> list[str]:
    """The groups ``user`` may charge a deployment to (from LDAP or the OIDC groups claim,
    stored in the portal's form at login: see ``app.auth.groups``)."""
    return list(user.groups or ())


def user_group_to_send(user: User, group: str | None) -> str | None:
    """The group to send for a launch charged to ``group``, per ORCHESTRATOR_USER_GROUP:
    "always", "never" or "when-member" (only when the user has groups).

    Raises DeploymentError when a group is required and the user has none.
    """
    rule = current_app.config["ORCHESTRATOR_USER_GROUP"]
    if rule == "never":
        return None
    if group is None and rule == "always":
        raise DeploymentError(
            _(
                "This orchestrator needs every deployment charged to a group, and your account "
                "belongs to none. Ask your administrators to add you to a project group."
            )
        )
    return group


def owner_of(state_owner: dict, backend: str = DEFAULT) -> User | None:
    """The portal user a backend names as a deployment's maker ({subject, issuer}), if any.

    Only personal identities map to one person: deployments made with the service identity
    cannot be told apart by owner.
    """
    subject, issuer = state_owner.get("subject"), str(state_owner.get("issuer") or "")
    if not subject or not issuer:
        return None
    provider = registry.login_provider_named_by(backend, issuer)
    if provider is None:
        matching = [
            p.name for p in oidc.enabled_providers() if p.issuer.rstrip("/") == issuer.rstrip("/")
        ]
        if not matching:
            return None
        provider = matching[0]
    return db.session.scalar(select(User).where(User.provider == provider, User.subject == subject))


def listing_identities() -> list[str]:
    """Every identity whose deployments the sync worker lists, at each backend in use: users
    with deployments or with stored tokens (who may have deployments made elsewhere), and
    the service identity."""
    pairs = set(db.session.execute(select(Deployment.user_id, Deployment.backend).distinct()))
    # Where every login is trusted, nothing was made but through this portal, so only
    # people with deployments recorded here can have any.
    if not trusts_every_login(DEFAULT):
        pairs |= {(user_id, DEFAULT) for user_id in db.session.scalars(select(OAuthToken.user_id))}
    users = {
        user.id: user
        for user in db.session.scalars(
            select(User).where(User.id.in_({user_id for user_id, _name in pairs}))
        )
    }
    keys = {identity_of(users[user_id], name) for user_id, name in pairs if user_id in users}
    return sorted(keys)


def backend_for_identity(key: str, timeout=None) -> Backend | None:
    """A backend acting as the identity ``key`` (see ``identity_of``); ``None`` if it has none
    now."""
    name, key = split_key(key)
    if key == SERVICE:
        if name == DEFAULT and (
            not current_app.config.get("ORCHESTRATOR_SERVICE_IDENTITY") or trusts_every_login(name)
        ):
            return None
        try:
            return service_backend(timeout, name)
        except (ConfigurationError, ValueError):
            return None
    user = db.session.get(User, int(key.removeprefix("user:")))
    if user is None:
        return None
    try:
        return backend_for(user, timeout, name)
    except (DeploymentError, ConfigurationError, ValueError):
        return None
