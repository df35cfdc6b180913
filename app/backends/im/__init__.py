"""The Infrastructure Manager (IM 2.0) as a backend: its REST client (``client``), its states
(``states``), why its infrastructures failed (``reasons``), the template it is sent
(``template``), deletes one at a time (``deletes``), which templates it can take
(``compatibility``) and the backend itself (``backend``).

IM's words (its states, its contextualisation log, its auth lines) stay inside this package.
IM is GPL-3.0: the portal talks to it over HTTP only and never imports it.
"""

from app.backends.im.backend import ImBackend, im_backend
from app.backends.im.compatibility import template_problem

__all__ = ["ImBackend", "im_backend", "make_backend", "template_problem"]


def make_backend(caller, token_provider, timeout=None) -> ImBackend:
    """IM acting for ``caller`` with their own access token (people who log in through an
    identity provider), or for the portal's service identity (IM_USERNAME and IM_PASSWORD)
    when ``caller`` is None or logged in locally or through LDAP. ``timeout`` is IM_TIMEOUT's
    business: IM's calls have their own."""
    from app.auth import oidc

    if caller is not None and oidc.find_provider(caller.provider) is not None:
        return im_backend(access_token=token_provider())
    return im_backend()


def free_capacity(placement: str, url: str | None = None) -> dict:
    """What cloud line ``placement`` has left under its quotas (see ``capacity``)."""
    from app.backends.im.capacity import free_capacity as read

    return read(placement, url)


def capabilities():
    return ImBackend.capabilities


def check() -> tuple[bool, str, str]:
    """Whether the configured IM answers the portal's service identity: (answers, who, what
    it said). Raises ValueError when IM is not configured."""
    from flask import current_app

    from app.backends.base import BackendError

    who = f"service identity {current_app.config.get('IM_USERNAME') or '(no IM_USERNAME)'}"
    with im_backend() as backend:
        try:
            version = backend.client.version()
            count = len(backend.client.list_ids())
        except BackendError as error:
            return False, who, error.message
    return True, who, f"IM {version}; {count} infrastructures held by this identity"
