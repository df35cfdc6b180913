"""The base class of the input fields: one subclass per TOSCA input type.

An ``InputField`` wraps one parsed input definition (``parsed.InputSpec``) and knows:

- ``make_field()``: the WTForms field (chosen by the sidecar ``widget``), with its validators and
  browser hints (``render_kw``);
- ``coerce(value, strict=...)``: a submitted value (form text, or JSON from a non-form caller when
  ``strict``) turned into the TOSCA value sent to the orchestrator, or ``ValueError``;
- ``check(value, strict=...)``: ``coerce`` plus the TOSCA constraints, as a list of messages;
- ``to_tosca(data)`` / ``to_form(value)``: the way from form data to TOSCA value and back.

Labels and help are plain text; templates escape them.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any, ClassVar, NamedTuple

from flask_babel import gettext
from flask_babel import lazy_gettext as _
from wtforms import Field, RadioField, SelectField, StringField
from wtforms.validators import StopValidation, ValidationError

from app.tosca import display
from app.tosca.constraints import (
    Constraint,
    browser_hints,
    describe_pattern,
    parse_constraints,
    valid_values,
    violations,
)
from app.tosca.inputs.limits import max_length, too_long
from app.tosca.metadata import humanise

# The English message id; each reader gets it in their language (``gettext(REQUIRED_MESSAGE)``).
REQUIRED_MESSAGE = "This field is required."

try:
    from wtforms import SelectChoice as Choice  # WTForms >= 3.3 deprecates plain tuples
except ImportError:  # pragma: no cover - older WTForms

    class Choice(NamedTuple):
        value: str
        label: str


class WidgetError(ValueError):
    """The sidecar asks for a widget the input's type can't use."""


class InputField:
    """One template input as a form field; subclasses set the class attributes below."""

    #: Names the kind of field for the form macros ("string", "password", "ports"...).
    kind: ClassVar[str] = "string"
    #: Widgets this type supports, the first being the default.
    widgets: ClassVar[tuple[str, ...]] = ("text", "textarea", "select", "radio")
    #: The type constraints are parsed as; ``None`` means the input's own type.
    constraint_type: ClassVar[str | None] = None
    #: Why this input can't get a proper field (the catalogue lists it), or ``None``.
    unsupported_reason: str | None = None

    def __init__(self, spec):
        """Build the field for ``spec`` (a ``parsed.InputSpec``).

        Raises ``constraints.ConstraintError`` for malformed constraints and ``WidgetError`` for a
        widget the type can't use.
        """
        self.spec = spec
        self.name: str = spec.name
        self.constraints = [
            self._worded(constraint)
            for constraint in parse_constraints(spec.constraints, self.constraint_type or spec.type)
        ]
        self.widget = spec.widget or self.default_widget()
        if self.widget not in self.widgets:
            raise WidgetError(
                f'Input "{spec.name}": widget "{self.widget}" does not suit its type '
                f"{spec.type} (use one of: {', '.join(self.widgets)})."
            )

    def _worded(self, constraint: Constraint) -> Constraint:
        """A pattern with the sidecar's ``pattern_message``, or words of the portal's own."""
        if constraint.operator != "pattern":
            return constraint
        if self.spec.pattern_message:
            return replace(constraint, wording=self.spec.pattern_message)
        default = self.spec.default if self.spec.has_default else None
        example = default if isinstance(default, str) and constraint.is_satisfied(default) else None
        return replace(constraint, wording=describe_pattern(constraint.argument, example))

    # --- what the form shows ---------------------------------------------------------------

    def default_widget(self) -> str:
        if valid_values(self.constraints) or self.spec.choices:
            return "select" if "select" in self.widgets else self.widgets[0]
        return self.widgets[0]

    @property
    def label(self) -> str:
        return self.spec.label or humanise(self.name)

    @property
    def help(self) -> str:
        return self.spec.help or self.spec.description or ""

    @property
    def required(self) -> bool:
        """Whether a value must be given: TOSCA ``required`` (default true) and no default."""
        return bool(self.spec.required) and not self.spec.has_default

    def choices(self) -> list | None:
        """The offered values (sidecar ``choices``, else ``valid_values``), as TOSCA values."""
        offered = self.spec.choices or valid_values(self.constraints)
        return list(offered) if offered else None

    @property
    def length_kind(self) -> str:
        """The key of this field's length limit in INPUT_MAX_LENGTHS."""
        return self.kind

    @property
    def max_length(self) -> int | None:
        """The most characters a typed value may have (see ``limits``); None for choices.

        Never less than the template's own default: its author chose it, so it is launchable
        as it stands (it is bounded by the template's size limit)."""
        if self.widget in ("select", "radio", "checkbox"):
            return None
        limit = max_length(self.length_kind)
        if self.spec.has_default and self.spec.default is not None:
            with contextlib.suppress(TypeError, ValueError):
                shown = self.to_form(self.spec.default)
                if isinstance(shown, str):
                    limit = max(limit, len(shown))
        return limit

    def render_kw(self) -> dict[str, Any]:
        """HTML attributes for the browser: required, placeholder, constraint hints, and the
        length limit (which the form macro also states in words)."""
        hints: dict[str, Any] = {}
        if self.widget not in ("select", "radio", "checkbox"):
            hints.update(browser_hints(self.constraints))
        if self.max_length and self.widget not in ("number", "slider"):
            hints["maxlength"] = min(self.max_length, hints.get("maxlength") or self.max_length)
        if self.required:
            hints["required"] = True
        if self.spec.placeholder:
            hints["placeholder"] = self.spec.placeholder
        return hints

    def field_class(self) -> type[Field]:
        """The WTForms field class for the chosen widget."""
        return {"select": SelectField, "radio": RadioField}.get(self.widget, StringField)

    def field_options(self) -> dict[str, Any]:
        """Extra keyword arguments for ``field_class()`` (choices, places...)."""
        if self.widget in ("select", "radio"):
            options = [
                Choice(self.choice_value(v), self.choice_label(v)) for v in self.choices() or []
            ]
            if self.widget == "select" and not self.spec.has_default:
                if not self.required:
                    options.insert(0, Choice("", _("(not set)")))
                elif len(options) > 1:
                    # A browser shows a select's first option as chosen while the form holds
                    # nothing: the summary would count one value and the launch send another.
                    options.insert(0, Choice("", _("Choose...")))
            return {"choices": options, "validate_choice": True}
        return {}

    def choice_value(self, value: Any) -> str:
        # An invalid choice is reported when the template is parsed; show it as written.
        with contextlib.suppress(ValueError):
            value = self.coerce(value)
        return str(self.to_form(value))

    def choice_label(self, value: Any) -> str:
        return display.value_text(self.name, value) or str(value)

    def help_and_hints(self) -> tuple[str, dict[str, Any]]:
        """The help shown below the field and its browser hints (``render_kw``).

        A required field shows no placeholder: a browser draws it like a typed value, so the
        person believes the field is filled in and is then refused for leaving it empty. Its
        example goes into the help instead (unless the help already gives it).
        """
        hints, text = self.render_kw(), str(self.help)
        if self.spec.refused_default is not None:
            # Kept lazy, as below.
            default = self._shown(self.spec.refused_default)
            text = (
                _(
                    "%(help)s The template's own default, %(default)s, is outside what it "
                    "allows: choose a value.",
                    help=text,
                    default=default,
                )
                if text
                else _(
                    "The template's own default, %(default)s, is outside what it allows: "
                    "choose a value.",
                    default=default,
                )
            )
        if self.required and hints.get("placeholder"):
            example = str(hints.pop("placeholder"))
            if example not in text:
                # Kept lazy: the form class is built once and read in every language.
                text = (
                    _("%(help)s For example: %(example)s", help=text, example=example)
                    if text
                    else _("For example: %(example)s", example=example)
                )
        return text, hints

    def _shown(self, value: Any) -> str:
        """``value`` as the form would show it (as written when it can't be read)."""
        with contextlib.suppress(TypeError, ValueError):
            return str(self.to_form(self.coerce(value)))
        return str(value)

    def make_field(self):
        """The unbound WTForms field for this input."""
        text, hints = self.help_and_hints()
        return self.field_class()(
            label=self.label,
            description=text,
            default=self.form_default(),
            validators=[ToscaValue(self)],
            render_kw=hints,
            **self.field_options(),
        )

    def form_default(self) -> Any:
        if not self.spec.has_default:
            offered = self.choices() or []
            if self.required and len(offered) == 1:
                # The only value the constraints allow is the value: shown, counted and sent.
                with contextlib.suppress(ValueError):
                    return self.to_form(self.coerce(offered[0]))
            return None
        try:
            return self.to_form(self.coerce(self.spec.default))
        except ValueError:
            return self.to_form(self.spec.default)

    # --- values ----------------------------------------------------------------------------

    def is_empty(self, value: Any) -> bool:
        return value is None or (isinstance(value, str | list | dict) and len(value) == 0)

    def coerce(self, value: Any, *, strict: bool = False) -> Any:
        """The TOSCA value of ``value``; raises ``ValueError`` with a message for a person."""
        raise NotImplementedError

    def check(self, value: Any, *, strict: bool = False) -> tuple[Any, list[str]]:
        """(TOSCA value, messages): messages are empty when the value is valid."""
        try:
            converted = self.coerce(value, strict=strict)
        except ValueError as error:
            return None, [_sentence(str(error))]
        return converted, [_sentence(m) for m in violations(self.constraints, converted)]

    def to_tosca(self, data: Any) -> Any:
        """The TOSCA value for validated form data."""
        return self.coerce(data)

    def to_form(self, value: Any) -> Any:
        """Form data that shows a stored TOSCA value (for pre-filling and presets)."""
        return value


def _sentence(message: str) -> str:
    message = message[:1].upper() + message[1:]
    return message if message.endswith(".") else message + "."


class ToscaValue:
    """WTForms validator: required check, TOSCA type and constraints of one input."""

    def __init__(self, input_field: InputField):
        self.input_field = input_field
        self.field_flags = {"required": True} if input_field.required else {}

    def __call__(self, form, field) -> None:
        if field.process_errors or field.errors:
            raise StopValidation()  # the field already said what is wrong (not a number...)
        data = field.data
        limit = self.input_field.max_length
        if limit and isinstance(data, str) and len(data) > limit:
            raise StopValidation(too_long(data, limit))
        if self.input_field.is_empty(data):
            if self.input_field.required:
                raise StopValidation(gettext("This field is required."))
            raise StopValidation()
        _value, messages = self.input_field.check(data)
        if messages:
            raise ValidationError(" ".join(messages))
