"""The catalogue as each worker process holds it: parsed revisions, loaded from the database.

Parsing and validation happen once, when a revision is saved (operations.py); a worker only reads
the stored JSON. Every change bumps a counter in the database, which workers check at most every
CATALOGUE_RELOAD_SECONDS, so an admin's change reaches every process without a restart.
"""

import threading
import time
from dataclasses import dataclass
from datetime import datetime

from flask import current_app
from sqlalchemy import select

from app.auth.groups import normalise_groups
from app.backends import registry
from app.catalogue.models import CatalogueTemplate, CatalogueVersion, TemplateRevision
from app.catalogue.routing import serving_backend
from app.extension_points import StateKey
from app.extensions import db
from app.tosca.parsed import ParsedTemplate


@dataclass(frozen=True)
class Entry:
    """One published template as users see it.

    ``template`` is the revision as stored, in the default language; ``parsed`` is what every
    page, form, e-mail and API answer reads: the same in the current request's language.
    """

    slug: str
    revision_id: int
    revision_number: int
    template: ParsedTemplate
    updated_at: datetime
    # The template's own backend; None: the site's default (see ``serving_backend``).
    backend: str | None = None

    @property
    def serving_backend(self) -> str:
        """The name of the backend that deploys this template (``app.backends.registry``)."""
        return serving_backend(self)

    @property
    def runs_on(self) -> str:
        """How people are told where it runs ("Infrastructure Manager")."""
        return registry.label(self.serving_backend)

    @property
    def backend_words(self):
        """How the launch form speaks of where it runs (``app.backends.base.Words``)."""
        return registry.words(self.serving_backend)

    @property
    def parsed(self) -> ParsedTemplate:
        return self.template.localised()

    def visible_to(self, user) -> bool:
        groups = self.template.visible_to
        # Sidecars are written by hand: "/physics" there means the group "physics".
        shown_to = set(normalise_groups(groups))
        return not groups or user.is_admin or bool(shown_to & set(user.groups or ()))


class Catalogue:
    """The published entries of one worker, refreshed when the database says they changed."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: dict[str, Entry] = {}
        self._version: int | None = None
        self._checked_at = 0.0

    def entries(self) -> list[Entry]:
        """Every published entry, sorted by display name."""
        self._refresh_if_stale()
        return sorted(self._entries.values(), key=lambda e: e.parsed.name.lower())

    def get(self, slug: str) -> Entry | None:
        self._refresh_if_stale()
        return self._entries.get(slug)

    def visible_entries(self, user) -> list[Entry]:
        return [entry for entry in self.entries() if entry.visible_to(user)]

    def invalidate(self) -> None:
        """Reload at the next access (this process changed the catalogue itself)."""
        self._checked_at = 0.0
        self._version = None

    def _refresh_if_stale(self) -> None:
        interval = current_app.config["CATALOGUE_RELOAD_SECONDS"]
        if self._version is not None and time.monotonic() - self._checked_at < interval:
            return
        with self._lock:
            version = current_version()
            self._checked_at = time.monotonic()
            if version != self._version:
                self._entries = load_published()
                self._version = version


def current_version() -> int:
    row = db.session.get(CatalogueVersion, 1)
    return row.version if row else 0


def bump_version() -> None:
    """Record that the catalogue changed; part of the caller's transaction."""
    row = db.session.get(CatalogueVersion, 1)
    if row is None:
        db.session.add(CatalogueVersion(id=1, version=1))
    else:
        row.version = CatalogueVersion.version + 1


def load_published() -> dict[str, Entry]:
    """Read every published, visible template's revision JSON in one query."""
    rows = db.session.execute(
        select(
            CatalogueTemplate.slug,
            TemplateRevision.id,
            TemplateRevision.number,
            TemplateRevision.parsed,
            CatalogueTemplate.updated_at,
            CatalogueTemplate.backend,
        )
        .join(TemplateRevision, CatalogueTemplate.published_revision_id == TemplateRevision.id)
        .where(CatalogueTemplate.hidden.is_(False))
    )
    return {
        slug: Entry(slug, rev_id, number, ParsedTemplate.from_json(parsed), updated_at, backend)
        for slug, rev_id, number, parsed, updated_at, backend in rows
    }


_CATALOGUE = StateKey("catalogue")


def catalogue() -> Catalogue:
    """This worker's catalogue, created at first use."""
    return current_app.extensions.setdefault(_CATALOGUE, Catalogue())
