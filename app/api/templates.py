"""The catalogue for scripts: the templates open to the caller, and one with its input form."""

from __future__ import annotations

from flask import jsonify
from flask_babel import gettext as _

from app.api import bp, schemas
from app.api.auth import caller, requires
from app.api.openapi import operation
from app.api.problems import Problem
from app.catalogue.loader import Entry, catalogue
from app.tosca.inputs import is_secret
from app.tosca.metadata import humanise


def visible_entry(user, slug: str) -> Entry:
    """The published template ``slug`` open to ``user``; raises Problem "not-found"."""
    entry = catalogue().get(slug)
    if entry is None or not entry.visible_to(user):
        raise Problem(
            "not-found",
            _("There is no such application in the catalogue, or it is not open to you."),
        )
    return entry


def _summary(entry: Entry) -> dict:
    parsed = entry.parsed
    return {
        "slug": entry.slug,
        "name": parsed.name or entry.slug,
        "description": parsed.description,
        "tags": list(parsed.tags),
        "revision": entry.revision_number,
    }


def _input(spec) -> dict:
    secret = is_secret(spec)
    return {
        "name": spec.name,
        "type": spec.type,
        "label": spec.label or humanise(spec.name),
        "description": spec.help or spec.description or "",
        "required": bool(spec.required) and not spec.has_default and not spec.generate,
        "has_default": spec.has_default,
        # A secret's default is not shown back, as the form does not show it.
        "default": None if secret else spec.default,
        "constraints": list(spec.constraints or []),
        "choices": list(spec.choices) if spec.choices else None,
        "secret": secret,
        "generated": bool(spec.generate),
    }


@bp.get("/templates")
@requires("templates:read")
@operation("The templates open to you", response=schemas.TemplateList)
def list_templates():
    entries = catalogue().visible_entries(caller().user)
    return jsonify(schemas.TemplateList().dump({"items": [_summary(e) for e in entries]}))


@bp.get("/templates/<slug>")
@requires("templates:read")
@operation(
    "One template with its inputs: names, types, defaults, constraints, labels, secrets",
    response=schemas.TemplateDetail,
    problems=("not-found",),
)
def get_template(slug: str):
    entry = visible_entry(caller().user, slug)
    parsed = entry.parsed
    detail = {
        **_summary(entry),
        "inputs": [_input(spec) for spec in parsed.inputs if not spec.hidden],
        "outputs": [
            {
                "name": spec.name,
                "label": spec.label or humanise(spec.name),
                "description": spec.description,
                "secret": spec.show == "secret",
            }
            for spec in parsed.outputs
        ],
    }
    return jsonify(schemas.TemplateDetail().dump(detail))
