"""Fields for TOSCA's single-valued types: string, integer, float, boolean, version,
timestamp and the scalar-units (size, time, frequency)."""

from __future__ import annotations

import math
import re
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    DecimalRangeField,
    FloatField,
    IntegerField,
    IntegerRangeField,
    RadioField,
    SelectField,
    TextAreaField,
)

from app.tosca.inputs.base import InputField
from app.tosca.numbers import TooManyDigits, check_int, decimal, whole
from app.tosca.types import format_timestamp, parse_timestamp, parse_version
from app.tosca.units import SCALAR_UNITS, parse_scalar, read_size

_INTEGER_RE = re.compile(r"\s*[-+]?\d+\s*")


class StringInput(InputField):
    """``string``: a text box, text area, list of choices, or radio buttons."""

    kind = "string"
    widgets = ("text", "textarea", "select", "radio", "password")

    def default_widget(self) -> str:
        # A default of several lines (a values file, a cloud-init script) needs room to edit.
        if isinstance(self.spec.default, str) and "\n" in self.spec.default.strip():
            return "textarea"
        return super().default_widget()

    @property
    def length_kind(self) -> str:
        # Subclasses (an SSH key) keep their own kind's limit whatever their widget.
        return "text" if self.widget == "textarea" and self.kind == "string" else self.kind

    def field_class(self):
        if self.widget == "textarea":
            return TextAreaField
        return super().field_class()

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        if isinstance(value, str):
            return value
        if strict or isinstance(value, list | dict) or value is None:
            raise ValueError(_("must be text"))
        return str(value).lower() if isinstance(value, bool) else str(value)


class WholeNumberField(IntegerField):
    """An integer box whose refusals are written for a person, huge numbers included."""

    def process_formdata(self, valuelist):
        if not valuelist or not valuelist[0].strip():
            self.data = None
            return
        text = valuelist[0].strip()
        self.data = None
        if not _INTEGER_RE.fullmatch(text):
            raise ValueError(_("Type a whole number, such as 4."))
        self.data = whole(text)  # TooManyDigits says what is wrong in a sentence


class NumberField(FloatField):
    """A decimal number box whose refusals are written for a person, huge numbers included
    (WTForms' own would turn 10,000 digits into infinity)."""

    def process_formdata(self, valuelist):
        self.data = None
        if not valuelist or not valuelist[0].strip():
            return
        try:
            self.data = decimal(valuelist[0].strip())
        except TooManyDigits:
            raise
        except ValueError:
            raise ValueError(_("Type a number, such as 2.5.")) from None


class IntegerInput(InputField):
    """``integer``: a number box (step 1), slider, list of choices, or radio buttons."""

    kind = "integer"
    widgets = ("number", "slider", "select", "radio", "text")

    def field_class(self):
        if self.widget == "number":
            return WholeNumberField
        if self.widget == "slider":
            return IntegerRangeField
        return super().field_class()

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        if self.widget in ("number", "slider"):
            hints["step"] = 1
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> int:
        if isinstance(value, bool):
            raise ValueError(_("must be a whole number"))
        if isinstance(value, str) and not strict and _INTEGER_RE.fullmatch(value):
            value = whole(value)
        if isinstance(value, int):
            return check_int(value)
        if isinstance(value, float) and value.is_integer() and not strict:
            return int(value)
        raise ValueError(_("must be a whole number"))


class FloatInput(InputField):
    """``float``: a number box (any step), slider, list of choices, or radio buttons."""

    kind = "float"
    widgets = ("number", "slider", "select", "radio", "text")

    def field_class(self):
        if self.widget == "number":
            return NumberField
        if self.widget == "slider":
            return DecimalRangeField
        return super().field_class()

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        if self.widget in ("number", "slider"):
            hints["step"] = "any"
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> float:
        if isinstance(value, bool):
            raise ValueError(_("must be a number"))
        if isinstance(value, str) and not strict:
            try:
                value = decimal(value)
            except TooManyDigits:
                raise
            except ValueError:
                raise ValueError(_("must be a number")) from None
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(_("must be a number")) from None
        if math.isnan(number):
            raise ValueError(_("must be a number"))
        if math.isinf(number):
            raise ValueError(_("is too large a number to use"))
        return number


class BooleanInput(InputField):
    """``boolean``: a checkbox, or yes/no as a list or radio buttons."""

    kind = "boolean"
    widgets = ("checkbox", "select", "radio")
    _WORDS = {
        "true": True,
        "yes": True,
        "on": True,
        "1": True,
        "false": False,
        "no": False,
        "off": False,
        "0": False,
    }

    @property
    def required(self) -> bool:
        return False  # unticked is an answer, not a missing one

    def default_widget(self) -> str:
        return "checkbox"

    def choices(self) -> list:
        return [True, False]

    def choice_label(self, value: Any) -> str:
        return _l("Yes") if value else _l("No")

    def field_class(self):
        return {"select": SelectField, "radio": RadioField}.get(self.widget, BooleanField)

    def to_form(self, value: Any) -> Any:
        if self.widget == "checkbox":
            return bool(value)
        return "true" if value else "false"

    def is_empty(self, value: Any) -> bool:
        return value is None or value == ""

    def coerce(self, value: Any, *, strict: bool = False) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and not strict and value.strip().lower() in self._WORDS:
            return self._WORDS[value.strip().lower()]
        raise ValueError(_("must be true or false"))


class VersionInput(StringInput):
    """``version``: text such as 7, 1.2 or 2.0.1, checked as a TOSCA version; a number in the
    template (``default: 7``) is the version it was written as."""

    kind = "version"
    widgets = ("text", "select", "radio")

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault("pattern", r"\d+(\.\d+(\.\d+(\.\w+(-\d+)?)?)?)?")
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        if isinstance(value, int | float) and not isinstance(value, bool) and not strict:
            value = str(value)
        if not isinstance(value, str):
            raise ValueError(_("must be a version such as 1.0 or 2.1.3"))
        parse_version(value)
        return value.strip()


class TimestampInput(StringInput):
    """``timestamp``: an ISO 8601 date and time; sent in UTC-aware ISO form."""

    kind = "timestamp"
    widgets = ("text",)

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault("placeholder", "2025-01-31T12:00:00Z")
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        if strict and not isinstance(value, str):
            raise ValueError(_("must be a date and time such as 2025-01-31T12:00:00Z"))
        return format_timestamp(parse_timestamp(value))


class ScalarUnitInput(StringInput):
    """``scalar-unit.size`` / ``.time`` / ``.frequency``: a number and a unit, e.g. "4 GB".

    Units are matched case-insensitively and sent in their TOSCA spelling ("4 GiB"); the form
    macro may render ``units`` as a unit picker beside a number box.
    """

    kind = "scalar-unit"
    widgets = ("text", "select", "radio")

    @property
    def units(self) -> list[str]:
        return list(SCALAR_UNITS[self.spec.type])

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault(
            "placeholder",
            {"scalar-unit.size": "4 GB", "scalar-unit.time": "30 m"}.get(self.spec.type, "2 GHz"),
        )
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> str:
        if strict and not isinstance(value, str):
            raise ValueError(
                _("must be a number followed by a unit (%(units)s)", units=", ".join(self.units))
            )
        if self.spec.type == "scalar-unit.size":
            # The same reading as quota accounting, so the form and the charge agree.
            return str(read_size(value))
        return str(parse_scalar(value, self.spec.type))


SCALAR_FIELDS: dict[str, type[InputField]] = {
    "string": StringInput,
    "integer": IntegerInput,
    "float": FloatInput,
    "boolean": BooleanInput,
    "version": VersionInput,
    "timestamp": TimestampInput,
    **{kind: ScalarUnitInput for kind in SCALAR_UNITS},
}

__all__ = [
    "SCALAR_FIELDS",
    "BooleanInput",
    "FloatInput",
    "IntegerInput",
    "ScalarUnitInput",
    "StringInput",
    "TimestampInput",
    "VersionInput",
]
