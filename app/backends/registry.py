"""The backends the portal knows, by the name stored with each deployment and template: each
name maps to the one class that carries everything the portal asks of that backend
(``app.backends.base.Backend``). Ask ``kind(name)``, then its class methods.

Which backend serves a template is the catalogue's choice (its ``backend``), else the site's
``DEFAULT_BACKEND``.
"""

from __future__ import annotations

from app.backends.base import Backend, Caller
from app.backends.im.backend import ImBackend
from app.backends.paas.backend import PaasBackend

# name: the class of everything the portal asks of it.
_KNOWN: dict[str, type[Backend]] = {backend.name: backend for backend in (PaasBackend, ImBackend)}
NAMES = tuple(_KNOWN)
# The backend the portal's words were first written for, and that made every deployment
# before there were several: its refusals kept before they named a backend are its own, and
# the keys of its callers' identities carry no prefix (``identity_key``).
FIRST = "paas"


class Unknown(Backend):
    """A name no backend has (a record older than its removal): neutral words, nothing beyond
    the common verbs, not set up."""

    @classmethod
    def configured(cls) -> bool:
        return False

    @classmethod
    def for_caller(cls, caller: Caller | None, *, quick: bool = False) -> Backend:
        from app.errors import ConfigurationError

        raise ConfigurationError(f"No backend is named {cls.name!r}.")


def settle(config) -> None:
    """Every backend's settings filled in and checked, once ``config`` is loaded. Raises
    ConfigurationError when one cannot be used."""
    for name in NAMES:
        kind(name).settle(config)


def known(name: str | None) -> bool:
    return name in _KNOWN


def kind(name: str | None) -> type[Backend]:
    """The class of backend ``name``; ``Unknown`` (named so) for a name no backend has."""
    if not known(name):
        return type("Unknown", (Unknown,), {"name": name or ""})
    return _KNOWN[name]


def words(name: str | None):
    """How people are told of backend ``name`` (its ``Words``); neutral words for a name no
    backend has."""
    return kind(name).words


def label(name: str) -> str:
    """How people are told of backend ``name`` ("Infrastructure Manager"); an unknown name is
    shown as it is."""
    return str(words(name).label) if known(name) else name


def identity_key(name: str, key: str) -> str:
    """The key of identity ``key`` ("user:<id>", "service") at backend ``name``: prefixed with
    the backend's name ("im:user:<id>") but for the first backend, whose keys were there
    first."""
    return key if name == FIRST else f"{name}:{key}"


def split_identity_key(key: str) -> tuple[str, str]:
    """(backend, identity) of a key made by ``identity_key``."""
    name, _sep, rest = key.partition(":")
    if known(name) and rest and name != FIRST:
        return name, rest
    return FIRST, key


def quota_tellers() -> tuple[str, ...]:
    """The backends that tell what their sites may use and have used (``Backend.quotas``),
    known before the portal is configured: each is a kind of capacity source."""
    return tuple(name for name in NAMES if kind(name).abilities.quotas)


def service_token() -> str | None:
    """An access token of the portal's own login at an identity provider, from the first
    backend that has one configured (what a federation registry in front of its sites
    accepts); None when none has. Raises TokenUnavailable, ConfigurationError."""
    for name in NAMES:
        token = kind(name).service_token()
        if token:
            return token
    return None


def demo_notice(page_backend: str | None = None) -> str | None:
    """The warning a page shows while a demo backend is in use, or None: on a page about one
    template or deployment (``page_backend``, the backend that serves it), only when that
    backend is a demo; on other pages, when any configured backend is, saying which one does
    deploy for real when another does."""
    from flask_babel import gettext as _

    if page_backend is not None:
        if kind(page_backend).deploys_for_real():
            return None
        return _("Demo orchestrator: nothing real is deployed")
    used = [name for name in NAMES if kind(name).configured()]
    demos = [name for name in used if not kind(name).deploys_for_real()]
    if not demos:
        return None
    real = [name for name in used if name not in demos]
    if not real:
        return _("Demo orchestrator: nothing real is deployed")
    return _(
        "Demo orchestrator: nothing real is deployed by the %(demo)s; templates that run on the "
        "%(real)s are deployed for real.",
        demo=", ".join(label(name) for name in demos),
        real=", ".join(label(name) for name in real),
    )
