"""Whose name the portal calls a backend in: the portal hands each backend a neutral caller
(``caller_of``: who, with their login's access token if it has one), and the backend's own
credential rules decide the rest (``app.backends.registry.kind(name)``): whether it takes the
caller as themselves, acts for them with an identity of its own, or cannot be used by them.

An identity has a key (``identity_of``): "user:<id>" for calls in someone's own name,
"service" for the portal's identity at a backend. The sync worker lists deployments by
identity (``app.sync.identities``); a launch asks for its identity's listing soon.

A deployment is held at its backend in the identity it was made with: every call about it
is made as its holder (``holder_of``), its owner unless it was taken over, when the person
who made it stays its holder.
"""

from __future__ import annotations

from app.auth import oidc
from app.auth.models import User
from app.auth.tokens import access_token_for
from app.backends import registry
from app.backends.base import Backend, Caller, Refused
from app.deployments.errors import DeploymentError

SERVICE = "service"


def uses_own_token(user: User) -> bool:
    """Whether ``user`` logged in through an identity provider, whose token they call with."""
    return oidc.find_provider(user.provider) is not None


def caller_of(user: User) -> Caller:
    """``user`` as a backend is told of them: with their login's access token, if any."""
    token = (lambda: access_token_for(user)) if uses_own_token(user) else None
    return Caller(user.provider, user.subject, tuple(user.groups or ()), access_token=token)


def identity_of(user: User, backend: str) -> str:
    """The key of the identity ``user``'s calls to ``backend`` are made with: "user:<id>" for
    calls in their own name, "service" for the portal's own identity there (see
    ``registry.identity_key``)."""
    own = registry.kind(backend).calls_as_self(caller_of(user))
    return registry.identity_key(backend, f"user:{user.id}" if own else SERVICE)


def holder_of(deployment) -> User:
    """Whom every call about ``deployment`` at its backend is made as: the person it was made
    there by, who stays its holder when someone else takes it over (a backend lets only a
    deployment's maker act on it); its owner unless it changed hands."""
    return deployment.backend_holder or deployment.user


def holder_key(deployment) -> str:
    """The key of the identity ``deployment`` is held in at its backend (``identity_of`` its
    holder): the sync worker's listing that holds it."""
    return identity_of(holder_of(deployment), deployment.backend)


def split_key(key: str) -> tuple[str, str]:
    """(backend, identity) of a key made by ``identity_of``."""
    return registry.split_identity_key(key)


def launch_blocker(user: User, backend: str) -> str | None:
    """Why ``user`` cannot launch at ``backend`` at all, as a sentence for them; ``None`` when
    they can."""
    return registry.kind(backend).launch_blocker(caller_of(user))


def backend_for(user: User, name: str, *, quick: bool = False) -> Backend:
    """Backend ``name`` acting as ``user`` (use it in a ``with`` block); ``quick`` for a call a
    person waits for. Raises DeploymentError when ``user`` has no way to call it (see
    ``launch_blocker``)."""
    kind, caller = registry.kind(name), caller_of(user)
    blocker = kind.launch_blocker(caller)
    if blocker:
        raise DeploymentError(blocker)
    return kind.for_caller(caller, quick=quick)


def groups_for(user: User) -> list[str]:
    """The groups ``user`` may charge a deployment to (from LDAP or the OIDC groups claim,
    stored in the portal's form at login: see ``app.auth.groups``)."""
    return list(user.groups or ())


def user_group_to_send(user: User, group: str | None, backend: str) -> str | None:
    """The group to send with ``user``'s launch at ``backend`` charged to ``group``, by that
    backend's rule. Raises DeploymentError when it takes no launch without a group and the
    user has none."""
    try:
        return registry.kind(backend).group_to_send(group)
    except Refused as refused:
        raise DeploymentError(refused.message) from None
