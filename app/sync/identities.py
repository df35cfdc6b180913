"""The identities the sync worker lists deployments in, at each backend in use, the
deployments each holds (those made there in its name, whoever owns them now), and the person
a listing names as a deployment's maker. Keys and callers are ``app.deployments.identity``'s
(``identity_of``, ``backend_for``); the worker alone needs these."""

from __future__ import annotations

from sqlalchemy import and_, func, or_, select

from app.auth import oidc
from app.auth.models import OAuthToken, User
from app.backends import registry
from app.backends.base import Backend, RemoteState
from app.deployments.errors import DeploymentError
from app.deployments.identity import SERVICE, backend_for, identity_of, split_key
from app.deployments.models import Deployment
from app.errors import ConfigurationError
from app.extensions import db

# Who holds a deployment at its backend (``identity.holder_of``), as the database reads it.
_HOLDER = func.coalesce(Deployment.backend_holder_id, Deployment.user_id)


def listing_identities() -> list[str]:
    """Every identity whose deployments the sync worker lists, at each backend in use: users
    holding deployments there (their owners, or the makers of those taken over), the service
    identity, and, at a backend that may hold deployments made elsewhere in their name, users
    with stored tokens."""
    pairs = set(db.session.execute(select(_HOLDER, Deployment.backend).distinct()))
    for name in registry.NAMES:
        can = registry.kind(name).capabilities()
        # Where every login is trusted, nothing was made but through this portal, so only
        # people with deployments recorded here can have any.
        if can.made_elsewhere and not can.trusts_every_login:
            holders = db.session.scalars(select(OAuthToken.user_id))
            pairs |= {(user_id, name) for user_id in holders}
    users = {
        user.id: user
        for user in db.session.scalars(
            select(User).where(User.id.in_({user_id for user_id, _name in pairs}))
        )
    }
    keys = {identity_of(users[user_id], name) for user_id, name in pairs if user_id in users}
    return sorted(keys)


def held_by(key: str):
    """Which deployments the identity ``key`` holds (a condition on ``Deployment``): those
    held by that person, whoever owns them now, or for the service identity those held by
    anyone who does not call with their own token. The backend ``key`` names is not part of
    it."""
    _name, key = split_key(key)
    if key != SERVICE:
        holders = [int(key.removeprefix("user:"))]
    else:
        holders = select(User.id)
        names = [provider.name for provider in oidc.enabled_providers()]
        if names:
            holders = holders.where(User.provider.not_in(names))
    # Spelled out rather than through ``_HOLDER``, so that each half reads an index.
    return or_(
        Deployment.backend_holder_id.in_(holders),
        and_(Deployment.backend_holder_id.is_(None), Deployment.user_id.in_(holders)),
    )


def backend_for_identity(key: str) -> Backend | None:
    """A backend acting as the identity ``key`` (see ``identity_of``); ``None`` if it has none
    now."""
    name, key = split_key(key)
    kind = registry.kind(name)
    if key == SERVICE:
        can = kind.capabilities()
        if not can.acts_for_anyone or can.trusts_every_login:
            return None
        try:
            return kind.for_caller(None)
        except (ConfigurationError, ValueError):
            return None
    user = db.session.get(User, int(key.removeprefix("user:")))
    if user is None:
        return None
    try:
        return backend_for(user, name)
    except (DeploymentError, ConfigurationError, ValueError):
        return None


def owner_of(state: RemoteState, backend: str) -> User | None:
    """The portal user ``backend`` names as the deployment's maker (its creator's subject and
    issuer in ``state``), if any: its holder there, who owns it unless someone took it over.

    Only personal identities map to one person: deployments made with the service identity
    cannot be told apart by owner.
    """
    subject, issuer = state.owner_subject, str(state.owner_issuer or "")
    if not subject or not issuer:
        return None
    provider = registry.kind(backend).login_provider_named_by(issuer)
    if provider is None:
        matching = [
            p.name for p in oidc.enabled_providers() if p.issuer.rstrip("/") == issuer.rstrip("/")
        ]
        if not matching:
            return None
        provider = matching[0]
    return db.session.scalar(select(User).where(User.provider == provider, User.subject == subject))
