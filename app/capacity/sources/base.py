"""The one interface every capacity source implements, and the failures a read may end in.

A source reads its remote system once and returns what each site it knows had free, in the
portal's words (``SiteReading``); its own words (JSON keys, its GPU model names) stay in its
module. A read that cannot be trusted raises a ``SourceFailure`` whose message is a sentence
for an operator: the refresh pass keeps the numbers it had and shows that sentence.

A source that asks about each site apart (one request per site) returns, for a site whose
request failed, a reading with no numbers that carries the failure in words
(``SiteReading.unread``) instead of failing the whole read: one site's cloud being down says
nothing about the others, whose fresh numbers are stored while that site keeps its old ones,
marked. A read in which every site failed counts as a failed read.
"""

from __future__ import annotations

import hashlib
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import requests
from flask_babel import gettext as _

from app import remote
from app.capacity.snapshot import NodeFree

# (connect, read) seconds when a source's settings name none.
DEFAULT_TIMEOUT = (5.0, 20.0)
# The most any number read from a source may be: what a database integer column holds
# everywhere (PostgreSQL's INTEGER). A source may say anything; past this it is only "a lot".
MOST = 2**31 - 1


@dataclass(frozen=True)
class SiteReading:
    """What one site had free, as a source tells it. ``site`` is the site as the source
    names it; ``aliases`` are other names it may be known by at the portal (a region, a
    cloud id). None: the source does not tell. ``problem``: the site could not be read, in
    words for an operator; such a reading has no numbers (see ``unread``)."""

    site: str
    maintenance: bool = False
    cores: int | None = None
    memory_gib: float | None = None
    disk_gib: float | None = None
    instances: int | None = None
    gpus: Mapping[str, int] = field(default_factory=dict)
    gpus_known: bool = False
    aliases: tuple[str, ...] = ()
    problem: str | None = None
    # What each node had free, for a cluster of nodes (see ``snapshot.NodeFree``); None when
    # the source tells sums only.
    nodes: tuple[NodeFree, ...] | None = None

    def __post_init__(self):
        # Every number a source gives is bounded here, whoever built the reading: one number
        # past what the database holds must not cost the whole refresh.
        set_ = object.__setattr__
        set_(self, "cores", bounded_count(self.cores))
        set_(self, "instances", bounded_count(self.instances))
        set_(self, "memory_gib", bounded(self.memory_gib))
        set_(self, "disk_gib", bounded(self.disk_gib))
        set_(self, "gpus", _bounded_gpus(self.gpus))
        if self.nodes is not None:
            set_(self, "nodes", tuple(_bounded_node(node) for node in self.nodes))

    @classmethod
    def unread(cls, site: str, failure: SourceFailure) -> SiteReading:
        """The reading of ``site`` when asking it ended in ``failure``."""
        return cls(site=site, problem=failure.message)


@dataclass(frozen=True)
class SourceSettings:
    """One entry of CAPACITY_SOURCES: its ``kind``, ``url`` and the rest as given."""

    kind: str
    url: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The name its refresh is recorded under: its kind and a digest of its address and
        site (addresses may be longer than the column)."""
        site = self.options.get("site") or ""
        return f"{self.kind}:{hashlib.sha256(f'{self.url}|{site}'.encode()).hexdigest()[:32]}"

    @property
    def timeout(self) -> tuple[float, float]:
        value = self.options.get("timeout")
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return (min(float(value), DEFAULT_TIMEOUT[0]), float(value))
        return DEFAULT_TIMEOUT


class SourceFailure(Exception):
    """A read that gave nothing usable; ``message`` says why, for an operator."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class SourceTimeout(SourceFailure):
    """The source did not answer in time, or could not be reached."""


class SourceRefused(SourceFailure):
    """The source refused the portal's credentials (401 or 403)."""


class SourceUnavailable(SourceFailure):
    """The source answered with an error (a 5xx, or another unexpected status)."""


class SourceUnreadable(SourceFailure):
    """The source answered something that is not the shape it publishes."""


class Source(ABC):
    """A remote system telling what sites have free."""

    kind: str = ""

    def __init__(self, settings: SourceSettings):
        self.settings = settings

    @abstractmethod
    def read(self) -> list[SiteReading]:
        """What each site the source knows has free now. Raises SourceFailure."""


def get_json(
    url: str,
    *,
    who: str,
    timeout: tuple[float, float],
    params: Mapping[str, Any] | None = None,
    token: str | None = None,
) -> Any:
    """GET ``url`` and decode its JSON; ``who`` names the source in failures. Every status
    other than 2xx becomes a named SourceFailure here, for every source alike; the answer is
    read whole within ``timeout`` added up and at most ``remote.DEFAULT_MAX_BYTES`` long
    (``app.remote``), or the read fails."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with remote.session() as session:
            response = remote.bounded(
                lambda **streaming: session.get(
                    url,
                    params=params,
                    headers=headers,
                    timeout=timeout,
                    allow_redirects=False,
                    **streaming,
                ),
                deadline=remote.deadline_of(timeout),
            )
    except remote.AnswerTooSlow as error:
        raise SourceTimeout(error.describe(who)) from None
    except remote.AnswerTooLarge as error:
        raise SourceUnreadable(error.describe(who)) from None
    except requests.Timeout:
        raise SourceTimeout(_("%(source)s did not answer in time.", source=who)) from None
    except requests.RequestException:
        raise SourceTimeout(_("%(source)s could not be reached.", source=who)) from None
    status = response.status_code
    if status in (401, 403):
        raise SourceRefused(
            _(
                "%(source)s refused the portal's credentials (HTTP %(status)d).",
                source=who,
                status=status,
            )
        )
    if not 200 <= status < 300:
        detail = _detail(response)
        raise SourceUnavailable(
            _(
                "%(source)s answered HTTP %(status)d: %(detail)s",
                source=who,
                status=status,
                detail=detail,
            )
            if detail
            else _("%(source)s answered HTTP %(status)d.", source=who, status=status)
        )
    try:
        return response.json()
    except ValueError:
        raise SourceUnreadable(_("%(source)s's answer is not JSON.", source=who)) from None


def _detail(response: requests.Response) -> str:
    """The reason a source gave with an error status (FastAPI's ``detail``), trimmed."""
    try:
        answer = response.json()
    except ValueError:
        return ""
    detail = answer.get("detail") if isinstance(answer, dict) else None
    return str(detail)[:300] if isinstance(detail, str) else ""


def free(limit: Any, used: Any) -> float | None:
    """What is left under ``limit`` once ``used`` is taken (never below zero): the one rule of
    every source. None when the limit is missing or is no limit: negative, as OpenStack writes
    "unlimited" (a backend that writes it otherwise says None: ``app.backends.base.Quota``)."""
    if not _number(limit) or limit < 0:
        return None
    return max(bounded(limit) - (bounded(used) if _number(used) else 0.0), 0.0)


def bounded(value: Any) -> float | None:
    """``value`` as a number between 0 and MOST (a number past MOST, or infinite, is MOST);
    None when it is no number at all (missing, text, NaN)."""
    if not _number(value) or (isinstance(value, float) and math.isnan(value)):
        return None
    if value >= MOST:
        return float(MOST)
    return max(float(value), 0.0)


def bounded_count(value: Any) -> int | None:
    """``bounded`` as a whole number."""
    found = bounded(value)
    return None if found is None else int(found)


def _bounded_gpus(gpus: Mapping[str, Any]) -> dict[str, int]:
    return {str(model): bounded_count(n) or 0 for model, n in (gpus or {}).items()}


def _bounded_node(node: NodeFree) -> NodeFree:
    return NodeFree(
        cores=bounded_count(node.cores) or 0,
        memory_gib=bounded(node.memory_gib) or 0.0,
        disk_gib=bounded(node.disk_gib) or 0.0,
        gpus=_bounded_gpus(node.gpus),
    )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
