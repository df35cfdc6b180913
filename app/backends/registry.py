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
