"""How large a number from outside may be before it reaches the database.

Every id the portal keeps is a database ``INTEGER`` (at most 2^31 - 1 on PostgreSQL; SQLite
refuses anything past 2^63 - 1). A larger id in an address names nothing, so the ``int``
converter of every route refuses it as a 404 before a view runs, instead of the database
failing on it. Page numbers from a query string are clamped to the same bound: a page past the
end already answers with the last one. Every other whole number read from a query string or a
form goes through ``whole_number`` (``request.args.get(name, type=whole_number)``: a number past
the bound counts as not given) or ``BoundedIntegerField`` (a form error in words).

JSON bodies are read by ``BoundedJSONProvider``: a document nested deeper than
``JSON_MAX_DEPTH`` is refused as ``TooDeep`` (a ValueError, so ``get_json(silent=True)`` gives
None), where Python's parser would otherwise raise RecursionError, a 500.
"""

from __future__ import annotations

from flask import Flask
from flask.json.provider import DefaultJSONProvider
from flask_babel import lazy_gettext as _l
from werkzeug.routing import IntegerConverter
from wtforms import IntegerField

LARGEST_ID = 2**31 - 1
# Deeper than any template's parameters or the orchestrator's answers go.
JSON_MAX_DEPTH = 64


class IdConverter(IntegerConverter):
    """``<int:...>`` that matches only ids the database can hold (0 to ``LARGEST_ID``)."""

    def __init__(self, map, fixed_digits=0, min=None, max=LARGEST_ID, signed=False):
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def init_bounds(app: Flask) -> None:
    """Make ``<int:...>`` in every route refuse ids the database cannot hold (before any
    blueprint adds its rules: converters are looked up as rules are added), and every JSON
    body read refuse a document nested too deep."""
    app.url_map.converters["int"] = IdConverter
    app.json = BoundedJSONProvider(app)


class TooDeep(ValueError):
    """A JSON document nested deeper than ``JSON_MAX_DEPTH``."""


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, whose ``loads`` refuses documents nested deeper than ``JSON_MAX_DEPTH``."""

    def loads(self, s, **kwargs):
        try:
            value = super().loads(s, **kwargs)
        except RecursionError as error:
            raise TooDeep(f"nested deeper than {JSON_MAX_DEPTH} levels") from error
        if nesting_depth(value, JSON_MAX_DEPTH) > JSON_MAX_DEPTH:
            raise TooDeep(f"nested deeper than {JSON_MAX_DEPTH} levels")
        return value


def nesting_depth(value, limit: int) -> int:
    """How deeply ``value``'s lists and mappings nest, found without recursion; the walk stops
    once past ``limit``."""
    deepest, stack = 0, [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, level = stack.pop()
        if level > deepest:
            deepest = level
            if deepest > limit:
                return deepest
        inner = item.values() if isinstance(item, dict) else item
        # Only containers are kept: most of a large document is scalars.
        stack.extend((child, level + 1) for child in inner if isinstance(child, dict | list))
    return deepest


def page_number(value, default: int = 1) -> int:
    """A page number from a query string: ``default`` when not a whole number, clamped to
    1..``LARGEST_ID``."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return max(1, min(number, LARGEST_ID))


def whole_number(value) -> int:
    """A whole number from a query string or a form, within -``LARGEST_ID``..``LARGEST_ID``;
    raises ValueError otherwise (so ``args.get(name, type=whole_number)`` gives its default)."""
    number = int(value)
    if not -LARGEST_ID <= number <= LARGEST_ID:
        raise ValueError(f"{value!r} is past {LARGEST_ID}")
    return number


class BoundedIntegerField(IntegerField):
    """A form's whole number that refuses, in words, one past what the database holds."""

    def process_formdata(self, valuelist):
        super().process_formdata(valuelist)
        if self.data is not None and not -LARGEST_ID <= self.data <= LARGEST_ID:
            self.data = None
            raise ValueError(
                _l(
                    "Give a number between %(least)d and %(most)d.",
                    least=-LARGEST_ID,
                    most=LARGEST_ID,
                )
            )
