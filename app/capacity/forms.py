"""The operators' forms for the sites: what they type is handed to ``operations`` as it is,
and whatever it refuses is shown beside the field it names, with the typed values kept."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField

from app.backends import registry
from app.capacity.operations import InvalidSite


class SiteForm(FlaskForm):
    """A site's name, backend and placement. It checks nothing itself: the rules are the
    operations' (``app.capacity.operations``), which also serve ``flask sites``."""

    name = StringField(_l("Name"), description=_l("As people see it, such as RECAS-BARI."))
    # Any value reaches the operation, which says in words why an unknown one is refused.
    backend = SelectField(
        _l("Backend"),
        validate_choice=False,
        description=_l("The service that sends deployments to this site."),
    )
    placement = StringField(_l("Placement"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.backend.choices = [(name, registry.label(name)) for name in registry.NAMES]
        stored = self.backend.data
        if stored and not registry.known(stored):
            # A record from a backend the portal no longer has: shown as it is, not replaced.
            self.backend.choices.append((stored, stored))

    def refused(self, error: InvalidSite) -> None:
        """Show ``error`` beside the field it names (above the form when it names none)."""
        field = self._fields.get(error.field or "")
        if field is None:
            self.form_errors.append(error.message)
        else:
            field.errors = [*field.errors, error.message]


class RemoveSiteForm(FlaskForm):
    """The confirmation of a removal: nothing to type, only the form's CSRF token."""


@dataclass(frozen=True)
class PlacementHint:
    """What a placement is to one backend, and whether its sites need one."""

    backend: str
    label: str
    meaning: str
    required: bool


def placement_hints() -> list[PlacementHint]:
    """The hint under the placement field: one line per backend."""
    return [
        PlacementHint(
            name,
            registry.label(name),
            str(registry.words(name).placement),
            registry.kind(name).capabilities().site_needs_placement,
        )
        for name in registry.NAMES
    ]
