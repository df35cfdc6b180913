"""The template a deployment was launched from, as its catalogue revision holds it parsed:
read once per app and kept, since revisions never change. The record's outputs are split by it
(``tracking``), and its pages show its labels and name (``presenters``, ``models``)."""

from __future__ import annotations

from sqlalchemy import select

from app.caches import cached_many
from app.catalogue.models import TemplateRevision
from app.extensions import db
from app.tosca.parsed import ParsedTemplate

# Parsed templates kept per app, by revision (revisions never change).
PARSED_TEMPLATES = 256


def parsed_template(revision_id: int | None) -> ParsedTemplate | None:
    """The parsed template of a revision (cached: revisions never change); ``None`` if gone."""
    if revision_id is None:
        return None
    return parsed_templates({revision_id}).get(revision_id)


def parsed_templates(revision_ids: set[int]) -> dict[int, ParsedTemplate]:
    """The parsed templates of revisions, by id, the missing ones read in one query and kept
    (revisions never change); revisions gone or stored in an older format are left out. Each
    keeps its words per language once made (``ParsedTemplate.localised``)."""
    found = cached_many("parsed_templates", PARSED_TEMPLATES, revision_ids, _parsed)
    return {revision_id: parsed for revision_id, parsed in found.items() if parsed is not None}


def _parsed(revision_ids: set[int]) -> dict[int, ParsedTemplate]:
    rows = db.session.execute(
        select(TemplateRevision.id, TemplateRevision.parsed).where(
            TemplateRevision.id.in_(revision_ids)
        )
    )
    found = {}
    for revision_id, text in rows:
        try:
            found[revision_id] = ParsedTemplate.from_json(text)
        except ValueError:
            continue  # stored in an older format; names stand in for labels
    return found
