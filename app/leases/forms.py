"""The operators' lease policy form: one text field per duration, errors beside each field."""

from __future__ import annotations

from flask_babel import LazyString
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, StringField
from wtforms.validators import DataRequired, Length

from app.leases.durations import format_duration, format_durations
from app.leases.editing import UNSET, parse_field
from app.leases.errors import InvalidPolicy
from app.leases.policy import COUNT, DURATIONS, FIELDS, FLAG
from app.text import OneLine

_EMPTY = _l("Empty: the next level decides.")


def _help_with_empty(spec) -> str:
    return f"{spec.help} {_EMPTY}"


def _field(spec):
    """The field of ``spec``. Its help is a lazy string too: the class is built once, at
    import, and each page must word it in the language it is served in."""
    if spec.kind == FLAG:
        return BooleanField(spec.label, description=spec.help)
    return StringField(spec.label, description=LazyString(_help_with_empty, spec))


class PolicyForm(FlaskForm):
    reason = StringField(
        _l("Reason for the change"),
        validators=[
            DataRequired(_l("Say why the policy changes: it is kept in the history.")),
            Length(max=500),
            OneLine(),
        ],
    )

    @classmethod
    def showing(cls, values: dict, **kwargs) -> PolicyForm:
        data = {}
        for spec in FIELDS:
            value = values.get(spec.key)
            if spec.kind == FLAG:
                data[spec.key] = bool(value)
            elif value is None:
                data[spec.key] = ""
            elif spec.kind == DURATIONS:
                data[spec.key] = format_durations(value)
            elif spec.kind == COUNT:
                data[spec.key] = str(value)
            else:
                data[spec.key] = format_duration(value)
        return cls(data=data, **kwargs)

    def changes(self) -> dict | None:
        """The level's new fields, or None with errors set beside the fields."""
        changes, ok = {}, True
        for spec in FIELDS:
            try:
                value = parse_field(spec.key, self[spec.key].data)
            except InvalidPolicy as error:
                self[spec.key].errors = [*self[spec.key].errors, error.message]
                ok = False
                continue
            if value is not UNSET and not (spec.kind == FLAG and not value):
                changes[spec.key] = value
        return changes if ok else None


for _spec in FIELDS:
    setattr(PolicyForm, _spec.key, _field(_spec))
