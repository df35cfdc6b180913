"""Launch forms built from parsed templates, and the same checks for non-form callers.

``build_form_class`` assembles one ``inputs`` field per shown input into a ``LaunchForm``
subclass. ``LaunchForm.to_parameters()`` returns the values to send to the orchestrator:
every shown input that has a value; optional inputs left empty are omitted so the TOSCA
default applies, and hidden inputs are never sent (the template's default applies).
``check_parameters`` applies the same rules to a parameters mapping from an API or a relaunch.
"""

from __future__ import annotations

from typing import Any, ClassVar

from flask_babel import gettext as _
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict

from app.errors import PortalError
from app.tosca.constraints import ConstraintError
from app.tosca.inputs import REQUIRED_MESSAGE, SECRET_KINDS, InputField, WidgetError, field_for
from app.tosca.inputs.limits import too_long
from app.tosca.parsed import ParsedTemplate

# Names a field can't take because the form class already uses them.
_RESERVED = set(dir(FlaskForm)) | {"csrf_token", "meta", "data", "errors"}


class ParameterError(PortalError):
    """Launch parameters are not valid; ``errors`` maps input names to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        summary = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in errors.items())
        super().__init__(
            _("Some parameters are not valid (%(summary)s)", summary=summary),
            next(iter(errors), None),
        )


def field_name(input_name: str) -> str:
    """The form field name of an input: its own name unless the form class reserves it."""
    return f"input_{input_name}" if input_name in _RESERVED else input_name


def _input_fields(parsed: ParsedTemplate, *, shown_only: bool) -> dict[str, InputField]:
    fields = {}
    for spec in parsed.inputs:
        if shown_only and spec.hidden:
            continue
        try:
            fields[spec.name] = field_for(spec)
        except (ConstraintError, WidgetError):
            continue  # already in parsed.errors; such a template is not offered for launch
    return fields


class LaunchForm(FlaskForm):
    """Base class of generated launch forms; ``build_form_class`` sets the class attributes."""

    parsed: ClassVar[ParsedTemplate]
    input_fields: ClassVar[dict[str, InputField]] = {}
    # How its fields are drawn, kept by ``app.tosca.inputs.html`` (a dict of each subclass).
    _drawings: ClassVar[dict | None] = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, input_field in self.input_fields.items():
            bound = self[field_name(name)]
            # Read by the form macros: what kind of field, and which widget the sidecar chose.
            bound.field_kind = input_field.kind
            bound.input_widget = input_field.widget
            bound.units = getattr(input_field, "units", None)

    @classmethod
    def prefilled(cls, parameters: dict[str, Any], **kwargs) -> LaunchForm:
        """A form showing stored parameters (e.g. to relaunch), defaults for the rest."""
        data = {}
        for name, value in parameters.items():
            if name in cls.input_fields:
                data[field_name(name)] = cls.input_fields[name].to_form(value)
        return cls(data=data, **kwargs)

    def to_parameters(self) -> dict[str, Any]:
        """The validated values as ``{input_name: tosca_value}``; call after ``validate()``."""
        parameters = {}
        for name, input_field in self.input_fields.items():
            data = self[field_name(name)].data
            generates = getattr(input_field.spec, "generate", False)
            if input_field.is_empty(data) and not generates:
                continue
            parameters[name] = input_field.to_tosca(data)
        return parameters


def build_form_class(parsed: ParsedTemplate) -> type[LaunchForm]:
    """A ``LaunchForm`` subclass for ``parsed`` (callers that build one per revision keep it,
    see ``app.launch.prefill.form_class``).

    Inputs whose field can't be built (reported in ``parsed.errors``) are left out.
    """
    fields = _input_fields(parsed, shown_only=True)
    attributes: dict[str, Any] = {"parsed": parsed, "input_fields": fields, "_drawings": {}}
    for name, input_field in fields.items():
        attributes[field_name(name)] = input_field.make_field()
    return type(f"LaunchForm_{parsed.slug}".replace("-", "_"), (LaunchForm,), attributes)


def check_parameters(parsed: ParsedTemplate, parameters: Any) -> dict[str, Any]:
    """Validate launch parameters given as JSON-like data; return them as TOSCA values.

    Types are checked strictly (an integer input needs a number, not text). Raises
    ``ParameterError`` listing, per input, unknown names, missing required inputs, values of
    the wrong type and constraint violations; also when the template itself has errors.
    """
    if not parsed.ok:
        raise ParameterError({"": [_("This template has errors and can't be launched.")]})
    if not isinstance(parameters, dict):
        raise ParameterError({"": [_("Parameters must be a mapping of input names to values.")]})
    fields = _input_fields(parsed, shown_only=False)
    errors: dict[str, list[str]] = {}
    result: dict[str, Any] = {}
    for name in parameters:
        if name not in fields:
            errors[str(name)] = [_("Unknown parameter: the template has no such input.")]
    for name, input_field in fields.items():
        spec = input_field.spec
        if name not in parameters or parameters[name] is None:
            if input_field.required:
                errors[name] = [_(REQUIRED_MESSAGE)]  # the form's words, so both say the same
            continue
        if spec.hidden:
            errors[name] = [_("This input is fixed by the template and can't be set.")]
            continue
        limit = input_field.max_length
        if limit and isinstance(parameters[name], str) and len(parameters[name]) > limit:
            errors[name] = [too_long(parameters[name], limit)]
            continue
        value, messages = input_field.check(parameters[name], strict=True)
        if messages:
            errors[name] = messages
        else:
            result[name] = value
    if errors:
        raise ParameterError(errors)
    return result


def tab_layout(parsed: ParsedTemplate) -> list[tuple[str, list[str]]]:
    """The form's tabs as (tab name, [field names]), in order."""
    return [(tab["name"], [field_name(n) for n in tab["inputs"]]) for tab in parsed.tabs]


def presets_data(parsed: ParsedTemplate) -> list[dict[str, Any]]:
    """Presets as JSON-able data for the page: name, description and form values by field.

    A preset's values cover every field it names *and* every field with a template default
    that it does not name (reset to that default): switching from "Large" to "Small" must not
    keep Large's 100 GB disk. Fields without a default (an SSH key, a command) hold what the
    person typed, and keep it. The live form (static/js/launch.js) and the form without
    scripts (``with_preset``) both apply exactly these values.
    """
    fields = _input_fields(parsed, shown_only=True)
    defaults: dict[str, Any] = {}
    for name, field in fields.items():
        if field.spec.has_default and field.kind not in SECRET_KINDS:
            try:
                defaults.update(_form_values(field, name, field.spec.default))
            except ValueError:  # an unreadable default (in parsed.errors) is shown as written
                defaults[field_name(name)] = field.form_default()
    presets = []
    for preset in parsed.presets:
        values = dict(defaults)
        for name, value in preset["values"].items():
            try:
                values.update(_form_values(fields[name], name, value))
            except (KeyError, ValueError):
                continue  # hidden input or invalid value: already in parsed.errors
        presets.append(
            {"name": preset["name"], "description": preset["description"], "values": values}
        )
    return presets


def _form_values(field: InputField, name: str, value: Any) -> dict[str, Any]:
    """{form key: value} setting ``field`` to the TOSCA ``value``: one key, or one per control
    for a field made of several (a schedule). Raises ValueError for an unreadable value."""
    coerced = field.coerce(value)
    if hasattr(field, "form_parts"):
        return field.form_parts(coerced, field_name(name))
    return {field_name(name): field.to_form(coerced)}


def with_preset(formdata: MultiDict, preset: dict[str, Any]) -> MultiDict:
    """The submitted ``formdata`` with ``preset``'s values (from ``presets_data``) put in,
    as a browser without scripts sends them when a preset button is pressed."""
    data = MultiDict(formdata)
    for key, value in preset["values"].items():
        data.poplist(key)
        if value is True:
            data.add(key, "y")
        elif value is not False and value is not None:
            data.add(key, str(value))
    return data
