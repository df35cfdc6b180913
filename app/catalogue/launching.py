"""What happens around a launch from the catalogue: finding templates, pre-filling the form
with last time's values, summarising what will be requested, and handing over to deployments.
"""

from functools import lru_cache

from flask import current_app
from flask_login import current_user
from sqlalchemy import select

from app.catalogue.forms import build_form_class, field_name
from app.catalogue.loader import Entry
from app.catalogue.models import LaunchDefaults, TemplateRevision
from app.deployments.operations import launch as launch_deployment
from app.extensions import db
from app.tosca.inputs import SECRET_KINDS, is_secret
from app.tosca.yamlsafe import Limits


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
    secret = {spec.name for spec in entry.parsed.inputs if is_secret(spec)}
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


def summary(entry: Entry, form, user=None, group_name: str | None = None) -> dict:
    """What launching with the form's current values would cost ``user``, and whether it fits
    their quota (see ``app.quotas.preview``).

    Values that are not valid yet count as the template's defaults, so the box stays useful
    while the user is still typing.
    """
    from app.quotas.preview import launch_preview

    parameters = {}
    for name, input_field in form.input_fields.items():
        field = form[field_name(name)]
        if field.errors or input_field.is_empty(field.data):
            continue
        try:
            parameters[name] = input_field.to_tosca(field.data)
        except ValueError:
            continue
    return launch_preview(
        user or current_user,
        template_document(entry.revision_id),
        parameters,
        group_name=group_name,
        incomplete=any(f.errors for f in form),
    )


def generated_inputs(form) -> set[str]:
    """The secret inputs the user left empty for the portal to generate (``form`` validated)."""
    return {
        name
        for name, input_field in form.input_fields.items()
        if input_field.spec.generate
        and input_field.kind in SECRET_KINDS
        and input_field.is_empty(form[field_name(name)].data)
    }


def launch(user, entry: Entry, form, *, name: str | None = None, group: str | None = None):
    """Launch ``entry`` for ``user`` with the validated launch ``form``'s values, and remember
    them for next time; returns the new deployment.

    Raises the deployments feature's errors (PortalError subclasses) unchanged.
    """
    parameters = form.to_parameters()
    deployment = launch_deployment(
        user, entry, parameters, name=name, group=group, generated=generated_inputs(form)
    )
    remember_values(user, entry, parameters)
    return deployment
