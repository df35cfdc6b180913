"""The backends the portal knows, by the name stored with each deployment and template.

Each backend package is imported only when it is used, so a site without an Infrastructure
Manager never loads its code. Which backend serves a template is the catalogue's choice (its
``backend``), else the site's ``DEFAULT_BACKEND``.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

from flask_babel import lazy_gettext as _l

# name: (the module holding what the portal needs of it, how people call it)
_KNOWN = {
    "paas": ("app.backends.paas", _l("PaaS Orchestrator")),
    "im": ("app.backends.im", _l("Infrastructure Manager")),
}
NAMES = tuple(_KNOWN)
# The backend the portal's words were first written for: its refusals speak of "the
# orchestrator", the others' name their backend.
FIRST = "paas"


def known(name: str | None) -> bool:
    return name in _KNOWN


def label(name: str) -> str:
    """How people are told of backend ``name`` ("Infrastructure Manager"); an unknown name is
    shown as it is."""
    found = _KNOWN.get(name)
    return str(found[1]) if found else name


def template_problem(name: str, node_types: Iterable[str]) -> str | None:
    """Why backend ``name`` cannot deploy a template made of ``node_types`` (every node's type
    and the types it derives from), as a sentence for an admin; None when it can. Asked when
    an admin routes a template to a backend, never at launch."""
    package = import_module(_KNOWN[name][0])
    judge = getattr(package, "template_problem", None)
    return judge(tuple(node_types)) if judge is not None else None


def backend_for(name: str, caller, token_provider, timeout):
    """Backend ``name`` acting for ``caller`` (an ``app.backends.base.Caller``; None: the
    portal's service identity), with tokens from ``token_provider`` where it takes tokens.
    Raises ConfigurationError when that backend is not set up."""
    if name not in _KNOWN:
        from app.errors import ConfigurationError

        raise ConfigurationError(f"No backend is named {name!r}.")
    package = import_module(_KNOWN[name][0])
    return package.make_backend(caller, token_provider, timeout)


def read_report(name: str, body: dict):
    """What backend ``name``'s report to the portal's callback address says (a RemoteState).
    Raises ValueError when ``body`` is no such report, or the backend sends none."""
    reader = getattr(import_module(_KNOWN[name][0]), "read_report", None) if known(name) else None
    if reader is None:
        raise ValueError(f"backend {name!r} sends no reports")
    return reader(body)


def trusts_every_login() -> bool:
    """Whether the deployments service takes the portal's word for who is calling (the
    built-in demo): then everyone calls as themselves, whatever their login, and nothing can
    have been deployed there but through this portal."""
    return import_module(_KNOWN["paas"][0]).trusts_every_login()


def login_provider_named_by(issuer: str) -> str | None:
    """The portal login provider that a backend's issuer names (the demo's do); None when
    ``issuer`` is an identity provider's, to be matched against the configured ones."""
    return import_module(_KNOWN["paas"][0]).login_provider_named_by(issuer)


def capabilities(name: str):
    """What backend ``name`` can do (its ``Capabilities``); nothing beyond the common verbs
    for a name no backend has."""
    from app.backends.base import Capabilities

    if not known(name):
        return Capabilities()
    return import_module(_KNOWN[name][0]).capabilities()


def free_capacity(name: str, placement: str, url: str | None = None) -> dict:
    """What backend ``name`` says the site at ``placement`` has left under its quotas:
    ``{"cores", "memory_gib", "disk_gib", "instances", "gpus"}``, None where it does not
    tell. Raises ValueError when that backend cannot tell, and the errors of
    ``app.backends.base`` when the call fails."""
    reader = getattr(import_module(_KNOWN[name][0]), "free_capacity", None) if known(name) else None
    if reader is None:
        raise ValueError(f"backend {name!r} does not tell what its sites have free")
    return reader(placement, url)


def check(name: str) -> tuple[bool, str, str]:
    """Whether backend ``name`` answers, as whom, and what it said. Raises ValueError when it
    is not configured."""
    return import_module(_KNOWN[name][0]).check()
