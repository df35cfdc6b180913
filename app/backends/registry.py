"""The backends the portal knows, by the name stored with each deployment and template.

Each backend package is imported only when it is used, so a site without an Infrastructure
Manager never loads its code. Which backend serves a template is the catalogue's choice (its
``backend``), else the site's ``DEFAULT_BACKEND``.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

# name: the module holding what the portal needs of it (its ``WORDS`` among them).
_KNOWN = {
    "paas": "app.backends.paas",
    "im": "app.backends.im",
}
NAMES = tuple(_KNOWN)
# The backend the portal's words were first written for: its refusals speak of "the
# orchestrator", the others' name their backend.
FIRST = "paas"


def known(name: str | None) -> bool:
    return name in _KNOWN


def _package(name: str):
    return import_module(_KNOWN[name])


def words(name: str):
    """How people are told of backend ``name`` (its ``base.Words``); neutral words for a
    name no backend has."""
    from app.backends.base import UNKNOWN_WORDS

    return _package(name).WORDS if known(name) else UNKNOWN_WORDS


def label(name: str) -> str:
    """How people are told of backend ``name`` ("Infrastructure Manager"); an unknown name is
    shown as it is."""
    return str(words(name).label) if known(name) else name


def template_problem(name: str, node_types: Iterable[str]) -> str | None:
    """Why backend ``name`` cannot deploy a template made of ``node_types`` (every node's type
    and the types it derives from), as a sentence for an admin; None when it can. Asked when
    an admin routes a template to a backend, never at launch."""
    package = _package(name)
    judge = getattr(package, "template_problem", None)
    return judge(tuple(node_types)) if judge is not None else None


def backend_for(name: str, caller, token_provider, timeout):
    """Backend ``name`` acting for ``caller`` (an ``app.backends.base.Caller``; None: the
    portal's service identity), with tokens from ``token_provider`` where it takes tokens.
    Raises ConfigurationError when that backend is not set up."""
    if name not in _KNOWN:
        from app.errors import ConfigurationError

        raise ConfigurationError(f"No backend is named {name!r}.")
    package = _package(name)
    return package.make_backend(caller, token_provider, timeout)


def read_report(name: str, body: dict):
    """What backend ``name``'s report to the portal's callback address says (a RemoteState).
    Raises ValueError when ``body`` is no such report, or the backend sends none."""
    reader = getattr(_package(name), "read_report", None) if known(name) else None
    if reader is None:
        raise ValueError(f"backend {name!r} sends no reports")
    return reader(body)


def login_provider_named_by(name: str, issuer: str) -> str | None:
    """The portal login provider that backend ``name``'s ``issuer`` names itself (a demo's
    issuers do); None when ``issuer`` is an identity provider's, to be matched against the
    configured ones."""
    if not known(name):
        return None
    named = getattr(_package(name), "login_provider_named_by", None)
    return named(issuer) if named is not None else None


def capabilities(name: str):
    """What backend ``name`` can do (its ``Capabilities``, which may depend on its settings);
    nothing beyond the common verbs for a name no backend has."""
    from app.backends.base import Capabilities

    if not known(name):
        return Capabilities()
    return _package(name).capabilities()


def configured(name: str) -> bool:
    """Whether the portal is set up to deploy through backend ``name``."""
    if not known(name):
        return False
    ask = getattr(_package(name), "configured", None)
    return ask() if ask is not None else True


def deploys_for_real(name: str) -> bool:
    """False for a backend that stands in for a real one and makes nothing (a demo)."""
    if not known(name):
        return True
    ask = getattr(_package(name), "deploys_for_real", None)
    return ask() if ask is not None else True


def demo_notice(page_backend: str | None = None) -> str | None:
    """The warning a page shows while a demo backend is in use, or None: on a page about one
    template or deployment (``page_backend``, the backend that serves it), only when that
    backend is a demo; on other pages, when any configured backend is, saying which one does
    deploy for real when another does."""
    from flask_babel import gettext as _

    if page_backend is not None:
        if deploys_for_real(page_backend):
            return None
        return _("Demo orchestrator: nothing real is deployed")
    used = [name for name in NAMES if configured(name)]
    demos = [name for name in used if not deploys_for_real(name)]
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


def placement_problem(name: str, placement: str) -> str | None:
    """Why backend ``name`` could never deploy at ``placement`` as the portal is set up (a
    sentence for operators); None when it could, or when the backend cannot tell."""
    checker = getattr(_package(name), "placement_problem", None) if known(name) else None
    return checker(placement) if checker is not None else None


def free_capacity(name: str, placement: str, url: str | None = None) -> dict:
    """What backend ``name`` says the site at ``placement`` has left under its quotas:
    ``{"cores", "memory_gib", "disk_gib", "instances", "gpus"}``, None where it does not
    tell. Raises ValueError when that backend cannot tell, and the errors of
    ``app.backends.base`` when the call fails."""
    reader = getattr(_package(name), "free_capacity", None) if known(name) else None
    if reader is None:
        raise ValueError(f"backend {name!r} does not tell what its sites have free")
    return reader(placement, url)


def check(name: str) -> tuple[bool, str, str]:
    """Whether backend ``name`` answers, as whom, and what it said. Raises ValueError when it
    is not configured."""
    return _package(name).check()
