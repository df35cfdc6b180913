"""Sizes of flavours (instance types), from the site's configuration and from a template.

A template may state the sizes of the flavours it names in its TOSCA ``metadata``, under
``quota_flavours``, as one text (TOSCA metadata values are strings)::

    metadata:
      quota_flavours: "g5.large: 4 cores, 16 GB, 1 A10G GPU; m1.small: 1 core, 2 GB, 20 GB disk"

Each part is ``<n> core(s)``, a size (memory), a size followed by ``disk``, or ``<n> [model]
GPU(s)``. The site's QUOTA_FLAVOURS win over a template's statement of the same flavour.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask_babel import gettext as _

from app.quotas.resolving import AccountingError
from app.tosca.units import read_size

METADATA_KEY = "quota_flavours"
_CORES = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:cores?|cpus?|vcpus?)$", re.IGNORECASE)
_GPUS = re.compile(r"^(\d+)\s*(?:(\S+)\s+)?gpus?$", re.IGNORECASE)


def parse_flavours(text: str) -> dict[str, dict]:
    """Read a ``quota_flavours`` text into ``{flavour: {"cores", "memory", "disk", "gpus",
    "gpu_model"}}``. Raises AccountingError naming the part that can't be read."""
    found: dict[str, dict] = {}
    for entry in filter(None, (part.strip() for part in str(text).split(";"))):
        name, colon, sizes = entry.partition(":")
        if not colon or not name.strip():
            raise AccountingError(
                _(
                    "%(key)s: write “flavour: sizes”, got “%(entry)s”.",
                    key=METADATA_KEY,
                    entry=entry,
                )
            )
        size: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in sizes.split(","))):
            size.update(_part(name.strip(), part))
        found[name.strip()] = size
    return found


def _part(flavour: str, part: str) -> dict:
    if match := _CORES.match(part):
        return {"cores": float(match.group(1))}
    if match := _GPUS.match(part):
        return {"gpus": int(match.group(1)), "gpu_model": match.group(2)}
    text, disk = (
        (part[: -len("disk")].strip(), True) if part.lower().endswith("disk") else (part, False)
    )
    try:
        read_size(text)
    except ValueError:
        raise AccountingError(
            _(
                "%(key)s: “%(part)s” of flavour %(flavour)s is not cores, GPUs or a size.",
                key=METADATA_KEY,
                part=part,
                flavour=repr(flavour),
            )
        ) from None
    return {"disk": text} if disk else {"memory": text}


def flavours_for(template: Any, configured: Mapping | None) -> tuple[dict, list[str]]:
    """The flavour sizes that apply to ``template``: its own statement, overridden by the
    site's ``configured`` ones; and the problems met reading the template's (as sentences)."""
    stated: dict = {}
    problems: list[str] = []
    metadata = template.get("metadata") if isinstance(template, Mapping) else None
    if isinstance(metadata, Mapping) and metadata.get(METADATA_KEY):
        try:
            stated = parse_flavours(metadata[METADATA_KEY])
        except AccountingError as error:
            problems.append(str(error))
    return {**stated, **(configured or {})}, problems
