"""Marshmallow's messages about a request, in the caller's language.

Marshmallow writes its messages in English when it reads the request; they are translated here,
where the answer is written, by recognising each one (with its figures) and saying it again
from the portal's catalogue. A message not recognised is passed on as it came.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

_FIXED = {
    "Missing data for required field.": _l("A value is required."),
    "Field may not be null.": _l("A value is required; null is not one."),
    "Invalid value.": _l("Not a valid value."),
    "Not a valid string.": _l("Not a valid string."),
    "Not a valid utf-8 string.": _l("Not a valid UTF-8 string."),
    "Not a valid integer.": _l("Not a valid whole number."),
    "Not a valid number.": _l("Not a valid number."),
    "Number too large.": _l("The number is too large."),
    "Not a valid boolean.": _l("Not true or false."),
    "Not a valid mapping type.": _l("Not a JSON object."),
    "Not a valid list.": _l("Not a list."),
    "Invalid type.": _l("Not a valid type."),
    "Invalid input type.": _l("Not a JSON object."),
    "Unknown field.": _l("Unknown field."),
}

_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (
        re.compile(r"Length must be between (\d+) and (\d+)\."),
        lambda m: _("Give from %(min)s to %(max)s characters.", min=m[1], max=m[2]),
    ),
    (
        re.compile(r"Longer than maximum length (\d+)\."),
        lambda m: _("Give at most %(max)s characters.", max=m[1]),
    ),
    (
        re.compile(r"Shorter than minimum length (\d+)\."),
        lambda m: _("Give at least %(min)s characters.", min=m[1]),
    ),
    (
        re.compile(r"Must be greater than or equal to (\S+) and less than or equal to (\S+)\."),
        lambda m: _("Must be from %(min)s to %(max)s.", min=m[1], max=m[2]),
    ),
    (
        re.compile(r"Must be greater than or equal to (\S+)\."),
        lambda m: _("Must be %(min)s or more.", min=m[1]),
    ),
    (
        re.compile(r"Must be less than or equal to (\S+)\."),
        lambda m: _("Must be %(max)s or less.", max=m[1]),
    ),
    (
        re.compile(r"Must be one of: (.*)\."),
        lambda m: _("Must be one of: %(choices)s.", choices=m[1]),
    ),
]


def say(message) -> str:
    """One marshmallow message in the caller's language."""
    text = str(message)
    if text in _FIXED:
        return str(_FIXED[text])
    for pattern, words in _PATTERNS:
        found = pattern.fullmatch(text)
        if found:
            return words(found)
    return text


def field_errors(messages) -> dict[str, list[str]]:
    """Marshmallow's ``messages`` as the problem's ``errors``: a list of sentences per field
    (nested fields named ``outer.inner``); errors of the whole body under ""."""
    found: dict[str, list[str]] = {}

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(inner, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list | tuple):
            for inner in value:
                walk(inner, path)
        else:
            found.setdefault(path, []).append(say(value))

    walk(messages, "")
    return found
