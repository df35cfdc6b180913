"""The launch form as a person first sees it: the form class of a revision, and the values
pre-filled from their last launch of the same template (never its secrets)."""

from functools import cache

from flask_login import current_user
from sqlalchemy import bindparam, select

from app.caches import cached
from app.catalogue.forms import build_form_class, field_name, presets_data
from app.catalogue.loader import Entry
from app.catalogue.models import LaunchDefaults
from app.extensions import db
from app.tosca.inputs import SECRET_KINDS, is_secret
from app.tosca.translations import current_language

# Launch form classes kept per app: one per revision and language (the labels and help are
# the template's words in that language), and revisions never change.
FORM_CLASSES = 256


def form_class(entry: Entry):
    """The launch form class of an entry, built once per revision and language in each app."""
    key = (entry.revision_id, current_language())
    return cached("launch_forms", FORM_CLASSES, key, lambda: build_form_class(entry.parsed))


def presets(entry: Entry) -> list[dict]:
    """The entry's presets as the page offers them (``presets_data``), worked out once per
    revision and language in each app, like its form class: building every input's field to
    read them cost as much as the rest of the form's setting up. Read only, never changed."""
    key = (entry.revision_id, current_language())
    return cached("launch_presets", FORM_CLASSES, key, lambda: presets_data(entry.parsed))


@cache
def _remembered_statement():
    # Built once and kept (the form asks at each showing): only the values are read, with the
    # person and template as parameters, from the table itself on the session's connection,
    # so no step of the ORM is taken and the statement's cache key is worked out once.
    table = LaunchDefaults.__table__
    return select(table.c["values"]).where(
        table.c.user_id == bindparam("user_id"), table.c.slug == bindparam("slug")
    )


def remembered_values(user, slug: str) -> dict:
    """The values ``user`` launched template ``slug`` with last time (no secrets)."""
    values = db.session.connection().scalar(
        _remembered_statement(), {"user_id": user.id, "slug": slug}
    )
    return dict(values) if values else {}


def remember_values(user, entry: Entry, parameters: dict) -> None:
    """Keep the non-secret values for the next launch of the same template. Does not commit:
    the launch workflow commits them with the launch's outcome."""
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


def generated_inputs(form) -> set[str]:
    """The secret inputs the user left empty for the portal to generate (``form`` validated)."""
    return {
        name
        for name, input_field in form.input_fields.items()
        if input_field.spec.generate
        and input_field.kind in SECRET_KINDS
        and input_field.is_empty(form[field_name(name)].data)
    }


def initial_form(entry: Entry, earlier_parameters: dict | None = None, defaults: bool = False):
    """The form shown before anything is posted, and whether it was pre-filled: the template's
    defaults (``defaults``), an earlier deployment's settings (edit and relaunch), or the
    values the current user launched this template with last time."""
    form_cls = form_class(entry)
    if defaults:
        return form_cls(formdata=None), False
    if earlier_parameters is not None:
        return form_cls.prefilled(dict(earlier_parameters), formdata=None), True
    remembered = remembered_values(current_user, entry.slug)
    if remembered:
        return form_cls.prefilled(remembered, formdata=None), True
    return form_cls(formdata=None), False
