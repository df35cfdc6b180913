"""One-line texts: the names, reasons and labels people and scripts give the portal.

A one-line text ends up in a mail's subject, a log line, a table cell and a terminal; a control
character in it (a line break, a tab, an escape sequence, a NUL) can forge a mail header, split a
log entry or recolour a terminal. So every entrance (forms, the JSON API, the ``flask``
commands, ``rcp``, catalogue imports) refuses such texts in words, through this module, and text
stored before that rule is read through ``flatten``. Texts that are genuinely several lines (a
template's TOSCA body, a sidecar file, a list of patterns one per line) are not one-line texts.
"""

from __future__ import annotations

import re

import click
from flask_babel import gettext as _
from marshmallow import ValidationError as Invalid
from wtforms.validators import ValidationError

from app.errors import PortalError

# Unicode's Cc (C0, DEL and C1, U+0085 "next line" among them), Zl (U+2028) and Zp (U+2029),
# which editors, JavaScript and some mail readers take for line breaks: the whole of those
# categories, written as one class so that checking a name is one regular-expression scan.
_CONTROL = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_ONE = re.compile(f"[{_CONTROL}]")
_RUNS = re.compile(f"[{_CONTROL}]+")


def is_control(character: str) -> bool:
    return _ONE.fullmatch(character) is not None


def control_characters(text: str | None) -> list[str]:
    """The distinct control characters in ``text``, in the order they first appear."""
    return list(dict.fromkeys(_ONE.findall(text or "")))


def code_points(characters: list[str]) -> str:
    """Characters as a person can read them whatever they are: "U+000D, U+000A"."""
    return ", ".join(f"U+{ord(character):04X}" for character in characters)


def flatten(text: str | None) -> str:
    """``text`` with every run of control characters made one space, trimmed: how a one-line
    text stored before the rule is shown where a line break would do harm (a mail subject)."""
    return _RUNS.sub(" ", text or "").strip()


def visible(text: str) -> str:
    """``text`` with its control characters written as escapes ("\\r\\n"), for a message
    that must show them rather than act on them."""
    return "".join(repr(c)[1:-1] if is_control(c) else c for c in text)


def one_line_problem(text: str | None, label: str) -> str | None:
    """The sentence refusing ``text`` as the one-line field ``label``, or None when it is one."""
    found = control_characters(text if isinstance(text, str) else None)
    if not found:
        return None
    return _(
        "%(field)s must be a single line without control characters such as line breaks, "
        "tabs or escapes (found %(characters)s).",
        field=label,
        characters=code_points(found),
    )


def check_one_line(text: str | None, label: str, field: str | None = None) -> None:
    """Refuse ``text`` as the one-line field ``label``. Raises PortalError (for ``field``)."""
    problem = one_line_problem(text, label)
    if problem:
        raise PortalError(problem, field=field)


class OneLine:
    """The WTForms validator: the form shows the sentence under the field, keeping its value."""

    field_flags = {}

    def __call__(self, form, field) -> None:
        problem = one_line_problem(field.data, str(field.label.text))
        if problem:
            raise ValidationError(problem)


def one_line_api(label: str):
    """A marshmallow validator for the API schemas' one-line strings."""

    def validate(value) -> None:
        problem = one_line_problem(value, label)
        if problem:
            raise Invalid(problem)

    return validate


def one_line_option(label: str):
    """A click callback for a ``flask`` command's option or argument that is stored."""

    def callback(context, parameter, value):
        for text in value if isinstance(value, tuple | list) else [value]:
            problem = one_line_problem(text, label)
            if problem:
                raise click.BadParameter(problem, context, parameter)
        return value

    return callback
