"""The capacity sources the portal can read, by the ``kind`` written in CAPACITY_SOURCES.

Each kind is a module of this package holding a ``Source`` subclass; it is imported only when
a source of its kind is configured. A backend that tells its sites' quotas is a kind of its
own name (``registry.quota_tellers``), read through the backend.
"""

from __future__ import annotations

import json
from importlib import import_module

from app.backends import registry
from app.capacity.sources.base import Source, SourceSettings
from app.errors import ConfigurationError

_BACKEND_QUOTAS = ("app.capacity.sources.backend_quotas", "BackendQuotas")
# kind: (module, class)
KINDS = {
    "fedreg": ("app.capacity.sources.fedreg", "FederationRegistry"),
    **{name: _BACKEND_QUOTAS for name in registry.quota_tellers()},
    "cluster-stats": ("app.capacity.sources.cluster_stats", "ClusterStats"),
}
# Kinds whose numbers describe one site, named in the entry.
_ONE_SITE = {"cluster-stats"}
# Kinds that may leave "url" out, taking the address the portal already has for the backend.
_URL_OPTIONAL = set(registry.quota_tellers())


def configured(setting) -> list[SourceSettings]:
    """CAPACITY_SOURCES read into settings, in their order. Raises ConfigurationError naming
    the entry that cannot be used and why."""
    if isinstance(setting, str):
        try:
            setting = json.loads(setting) if setting.strip() else []
        except ValueError as error:
            raise ConfigurationError(f"CAPACITY_SOURCES is not JSON: {error}.") from None
    if not isinstance(setting, list | tuple):
        raise ConfigurationError("CAPACITY_SOURCES must be a list of objects.")
    found, keys = [], set()
    for number, entry in enumerate(setting, start=1):
        where = f"CAPACITY_SOURCES entry {number}"
        if not isinstance(entry, dict):
            raise ConfigurationError(f"{where} is not an object with a kind and a url.")
        kind = entry.get("kind")
        if kind not in KINDS:
            known = ", ".join(KINDS)
            raise ConfigurationError(f"{where} has kind {kind!r}; the kinds are {known}.")
        url = entry.get("url") or ""
        if not isinstance(url, str) or (not url and kind not in _URL_OPTIONAL):
            raise ConfigurationError(f"{where} ({kind}) needs a url.")
        if url and not url.startswith(("http://", "https://")):
            raise ConfigurationError(f"{where} ({kind}): url must start with http:// or https://.")
        if kind in _ONE_SITE and not (isinstance(entry.get("site"), str) and entry["site"]):
            raise ConfigurationError(
                f"{where} ({kind}) needs a site: the portal's name of the site it describes."
            )
        options = {k: v for k, v in entry.items() if k not in ("kind", "url")}
        settings = SourceSettings(kind=kind, url=url.rstrip("/"), options=options)
        if settings.key in keys:
            raise ConfigurationError(f"{where} repeats an earlier entry.")
        keys.add(settings.key)
        found.append(settings)
    return found


def source_for(settings: SourceSettings) -> Source:
    """The source that reads what ``settings`` describes."""
    module, name = KINDS[settings.kind]
    return getattr(import_module(module), name)(settings)
