"""The "what will be requested" box of the launch form: the cost of the values typed so far,
and whether it fits the person's quotas (priced and checked by ``app.quotas.preview``)."""

from flask_login import current_user
from sqlalchemy import select

from app.caches import cached
from app.catalogue.forms import field_name
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.extensions import db
from app.quotas.preview import launch_preview
from app.tosca.yamlsafe import Limits

# Loaded TOSCA documents kept per app, one per revision (revisions never change).
DOCUMENTS = 256


def template_document(revision_id: int) -> dict:
    """The loaded TOSCA of a revision. Raises TemplateError when it cannot be read."""
    return cached("launch_documents", DOCUMENTS, revision_id, lambda: _load(revision_id))


def _load(revision_id: int) -> dict:
    text = db.session.scalar(
        select(TemplateRevision.tosca_text).where(TemplateRevision.id == revision_id)
    )
    document, _lines = Limits().load(text)
    return document


def summary(entry: Entry, form, user=None, group_name: str | None = None) -> dict:
    """What launching with the form's current values would cost ``user``, and whether it fits
    their quota (see ``app.quotas.preview``).

    Values that are not valid yet count as the template's defaults, so the box stays useful
    while the user is still typing. Raises TemplateError when the template cannot be read.
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
    return launch_preview(
        user or current_user,
        template_document(entry.revision_id),
        parameters,
        group_name=group_name,
        incomplete=any(f.errors for f in form),
    )
