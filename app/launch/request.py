"""A request to launch, as one value: whoever builds it (the form, the API, a relaunch, a change
to a waiting request) builds it once, and every step of the launch reads it from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.auth.models import User
from app.catalogue.loader import Entry


@dataclass(frozen=True)
class LeaseChoice:
    """The lease chosen at launch: ``minutes`` (None: the policy's default), recorded with the
    deployment before it is submitted (``app.leases.operations.choose``)."""

    minutes: int | None = None


@dataclass(frozen=True)
class LaunchRequest:
    """Who launches which revision (``entry``) with which checked TOSCA ``parameters``.

    ``name`` (None: the template's name and a short suffix), ``group`` to charge (None: the
    person's first), ``site`` picked (None: left to the portal), ``generated``: the secret
    inputs the portal generated (kept sealed for the owner), ``lease`` chosen at launch (None:
    none chosen; the policy's default applies once the deployment is ready), ``remember``: keep
    the non-secret values for the person's next launch of the template.
    """

    user: User
    entry: Entry
    parameters: Mapping[str, Any]
    name: str | None = None
    group: str | None = None
    site: str | None = None
    generated: frozenset[str] = field(default_factory=frozenset)
    lease: LeaseChoice | None = None
    remember: bool = False
