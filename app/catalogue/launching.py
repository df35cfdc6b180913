"""What happens around a launch from the catalogue: finding templates, pre-filling the form
with last time's values, summarising what will be requested, and handing over to deployments.
"""

from functools import lru_cache

from flask import current_app
from sqlalchemy import select

from app.catalogue.forms import build_form_class, field_name
from app.catalogue.inputs import SECRET_KINDS
from app.catalogue.loader import Entry
from app.catalogue.models import LaunchDefaults, TemplateRevision
from app.catalogue.yamlsafe import Limits
from app.extensions import db
from app.quotas.accounting import AccountingError, requested_resources


def filter_entries(entries: list[Entry], query: str, tag: str) -> list[Entry]:
    """Entries whose name, description or tags contain every word of ``query``, with ``tag``."""
    words = query.lower().split()
    shown = []
    for entry in entries:
        parsed = entry.parsed
        if tag and tag not in parsed.tags:
            continue
        haystack = " ".join([parsed.name, parsed.description, *parsed.tags]).lower()
        if all(word in haystack for word in words):
            shown.append(entry)
    return shown


def remembered_values(user, slug: str) -> dict:
    record = db.session.scalar(
        select(LaunchDefaults).where(LaunchDefaults.user_id == user.id, LaunchDefaults.slug == slug)
    )
    return dict(record.values) if record else {}


def remember_values(user, entry: Entry, parameters: dict) -> None:
    """Keep the non-secret values for the next launch of the same template."""
    secret = {s.name for s in entry.parsed.inputs if s.kind in SECRET_KINDS or s.generate}
    values = {name: value for name, value in parameters.items() if name not in secret}
    record = db.session.scalar(
        select(LaunchDefaults).where(
            LaunchDefaults.user_id == user.id, LaunchDefaults.slug == entry.slug
        )
    )
    if record is None:
        db.session.add(LaunchDefaults(user_id=user.id, slug=entry.slug, values=values))
    else:
        record.values = values
    db.session.commit()


def form_class(entry: Entry):
    """The launch form class of an entry, built once per revision in each process."""
    return build_form_class(
        entry.parsed, key=(current_app.config["SQLALCHEMY_DATABASE_URI"], entry.revision_id)
    )


def template_document(revision_id: int) -> dict:
    """The loaded TOSCA of a revision; revisions never change, so this is cached per process."""
    return _template_document(current_app.config["SQLALCHEMY_DATABASE_URI"], revision_id)


@lru_cache(maxsize=256)
def _template_document(database: str, revision_id: int) -> dict:
    # Keyed by database too: one process may serve several (the tests do).
    text = db.session.scalar(
        select(TemplateRevision.tosca_text).where(TemplateRevision.id == revision_id)
    )
    document, _lines = Limits().load(text)
    return document


def summary(entry: Entry, form) -> dict:
    """What launching with the form's current values would request.

    Values that are not valid yet count as the template's defaults, so the box stays useful
    while the user is still typing.
    """
    parameters = {}
    for name, input_field in form.input_fields.items():
        field = form[field_name(name)]
        if field.errors or input_field.is_empty(field.data):
            continue
        try:
            parameters[name] = input_field.to_tosca(field.data)
        except ValueError:
            continue
    try:
        resources = requested_resources(template_document(entry.revision_id), parameters)
    except AccountingError as error:
        return {"error": str(error)}
    return {"resources": resources, "incomplete": any(f.errors for f in form)}


def launch(user, entry: Entry, parameters: dict):
    """Launch ``entry`` for ``user`` and remember the values; returns the new deployment.

    Raises the deployments feature's errors (PortalError subclasses) unchanged.
    """
    from app.deployments.operations import launch as launch_deployment

    deployment = launch_deployment(user, entry, parameters)
    remember_values(user, entry, parameters)
    return deployment
