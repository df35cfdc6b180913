"""TOSCA constraints, checked on the server with messages for people and hints for browsers.

tosca-parser does not check input values against their constraints, so the portal does: each
``Constraint`` checks a value already converted to its TOSCA type (``inputs`` does that), says
what is wrong in words ("must be between 1 and 64"), and offers the HTML attributes (``min``,
``max``, ``minlength``, ``maxlength``, ``pattern``) that let the browser say it first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_babel import lazy_ngettext

from app.tosca.types import parse_timestamp, parse_version
from app.tosca.units import SCALAR_UNITS, Scalar, parse_scalar

OPERATORS = (
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "in_range",
    "valid_values",
    "length",
    "min_length",
    "max_length",
    "pattern",
)
_COMPARISONS = ("equal", "greater_than", "greater_or_equal", "less_than", "less_or_equal")
_LENGTHS = ("length", "min_length", "max_length")


class ConstraintError(ValueError):
    """A constraint in a template is malformed; the message says which and why."""


def comparable(value: Any, type_name: str) -> Any:
    """Turn a TOSCA value into something ``<`` and ``==`` compare the TOSCA way.

    Scalar-units become their value in the base unit, versions a tuple, timestamps a datetime.
    Raises ``ValueError`` when ``value`` is not of ``type_name``.
    """
    if type_name in SCALAR_UNITS:
        return parse_scalar(value, type_name).base
    if type_name == "version":
        return parse_version(value)
    if type_name == "timestamp":
        return parse_timestamp(value)
    return value


def _show(value: Any) -> str:
    if isinstance(value, Scalar):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Constraint:
    """One TOSCA constraint (``operator`` is a key of ``OPERATORS``) on values of ``type_name``."""

    operator: str
    argument: Any
    type_name: str = "string"
    #: For a pattern: what a valid value looks like, in words (see ``describe_pattern``).
    wording: str | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, raw: Any, type_name: str) -> Constraint:
        """Build a constraint from its template form, e.g. ``{"in_range": [1, 64]}``.

        Raises ``ConstraintError`` when the operator is unknown or the argument doesn't fit it.
        """
        if not isinstance(raw, dict) or len(raw) != 1:
            raise ConstraintError(
                f"a constraint must be a single operator: value pair, not {raw!r}"
            )
        ((operator, argument),) = raw.items()
        if operator not in OPERATORS:
            raise ConstraintError(
                f'unknown constraint "{operator}" (known: {", ".join(OPERATORS)})'
            )
        constraint = cls(operator, argument, type_name)
        constraint._check_argument()
        return constraint

    def _check_argument(self) -> None:
        argument, operator = self.argument, self.operator
        try:
            if operator == "in_range":
                if not isinstance(argument, list) or len(argument) != 2:
                    raise ConstraintError("in_range needs a list of two values: [lower, upper]")
                if argument[1] != "UNBOUNDED":
                    comparable(argument[1], self.type_name)
                comparable(argument[0], self.type_name)
            elif operator == "valid_values":
                if not isinstance(argument, list) or not argument:
                    raise ConstraintError("valid_values needs a non-empty list")
            elif operator in _LENGTHS:
                if isinstance(argument, bool) or not isinstance(argument, int) or argument < 0:
                    raise ConstraintError(f"{operator} needs a whole number of at least 0")
            elif operator == "pattern":
                if not isinstance(argument, str):
                    raise ConstraintError("pattern needs a regular expression string")
                re.compile(argument)
            else:
                comparable(argument, self.type_name)
        except re.error as error:
            raise ConstraintError(
                f"pattern {argument!r} is not a valid expression: {error}"
            ) from None
        except ValueError as error:
            if isinstance(error, ConstraintError):
                raise
            raise ConstraintError(
                f"{operator}: {argument!r} is not a valid {self.type_name} ({error})"
            ) from None

    def _key(self, value: Any) -> Any:
        return comparable(value, self.type_name)

    def message(self) -> str:
        """What a valid value looks like, e.g. "must be between 1 and 64", in the language of
        whoever reads it (a form class is built once and shown to everyone)."""
        arg, entries = self.argument, self.type_name in ("list", "map")
        words: dict[str, Callable[[], str]] = {
            "equal": lambda: _l("must be %(value)s", value=_show(arg)),
            "greater_than": lambda: _l("must be greater than %(value)s", value=_show(arg)),
            "greater_or_equal": lambda: _l("must be at least %(value)s", value=_show(arg)),
            "less_than": lambda: _l("must be less than %(value)s", value=_show(arg)),
            "less_or_equal": lambda: _l("must be at most %(value)s", value=_show(arg)),
            "in_range": lambda: (
                _l("must be at least %(value)s", value=_show(arg[0]))
                if arg[1] == "UNBOUNDED"
                else _l(
                    "must be between %(low)s and %(high)s", low=_show(arg[0]), high=_show(arg[1])
                )
            ),
            "valid_values": lambda: _l(
                "must be one of: %(values)s", values=", ".join(_show(v) for v in arg)
            ),
            "length": lambda: (
                lazy_ngettext(
                    "must be exactly %(num)d entry long",
                    "must be exactly %(num)d entries long",
                    arg,
                )
                if entries
                else lazy_ngettext(
                    "must be exactly %(num)d character long",
                    "must be exactly %(num)d characters long",
                    arg,
                )
            ),
            "min_length": lambda: (
                lazy_ngettext(
                    "must have at least %(num)d entry", "must have at least %(num)d entries", arg
                )
                if entries
                else lazy_ngettext(
                    "must be at least %(num)d character long",
                    "must be at least %(num)d characters long",
                    arg,
                )
            ),
            "max_length": lambda: (
                lazy_ngettext(
                    "must have at most %(num)d entry", "must have at most %(num)d entries", arg
                )
                if entries
                else lazy_ngettext(
                    "must be at most %(num)d character long",
                    "must be at most %(num)d characters long",
                    arg,
                )
            ),
            "pattern": lambda: self.wording or describe_pattern(arg),
        }
        return words[self.operator]()

    def is_satisfied(self, value: Any) -> bool:
        """Whether ``value`` (already of the constraint's type) satisfies the constraint."""
        operator, arg = self.operator, self.argument
        try:
            if operator in _LENGTHS:
                if not hasattr(value, "__len__"):
                    return False
                return {
                    "length": len(value) == arg,
                    "min_length": len(value) >= arg,
                    "max_length": len(value) <= arg,
                }[operator]
            if operator == "pattern":
                return isinstance(value, str) and re.fullmatch(arg, value) is not None
            key = self._key(value)
            if operator == "valid_values":
                if self.type_name == "string":
                    # Templates often list unquoted YAML values (true, 8) for string inputs.
                    return any(_show(key) == _show(valid) for valid in arg)
                return any(key == self._key(valid) for valid in arg)
            if operator == "in_range":
                upper_ok = arg[1] == "UNBOUNDED" or key <= self._key(arg[1])
                return self._key(arg[0]) <= key and upper_ok
            bound = self._key(arg)
            return {
                "equal": key == bound,
                "greater_than": key > bound,
                "greater_or_equal": key >= bound,
                "less_than": key < bound,
                "less_or_equal": key <= bound,
            }[operator]
        except (TypeError, ValueError):
            return False

    def hints(self) -> dict[str, Any]:
        """HTML input attributes expressing this constraint, where one maps."""
        operator, arg = self.operator, self.argument
        numeric = self.type_name in ("integer", "float")
        if numeric and operator == "in_range":
            hints = {"min": arg[0]}
            if arg[1] != "UNBOUNDED":
                hints["max"] = arg[1]
            return hints
        if numeric and operator == "greater_or_equal":
            return {"min": arg}
        if numeric and operator == "less_or_equal":
            return {"max": arg}
        if self.type_name == "integer" and operator == "greater_than":
            return {"min": arg + 1}
        if self.type_name == "integer" and operator == "less_than":
            return {"max": arg - 1}
        if self.type_name == "string":
            if operator == "min_length":
                return {"minlength": arg}
            if operator == "max_length":
                return {"maxlength": arg}
            if operator == "length":
                return {"minlength": arg, "maxlength": arg}
            # Browsers read patterns as JavaScript expressions; only plain ones mean the same.
            if operator == "pattern" and "(?" not in arg and "\\A" not in arg and "\\Z" not in arg:
                return {"pattern": arg}
        return {}


def parse_constraints(raw: Any, type_name: str) -> list[Constraint]:
    """Build the constraints listed in a template (``None`` means none).

    The mapping form ``{in_range: [1, 4]}``, which the orchestrator accepts, reads as the list
    form (``leniency`` reports it). Raises ``ConstraintError`` for a malformed list or constraint.
    """
    if raw is None:
        return []
    if isinstance(raw, dict):
        raw = [{key: value} for key, value in raw.items()]
    if not isinstance(raw, list):
        raise ConstraintError("constraints must be a list")
    return [Constraint.parse(item, type_name) for item in raw]


def violations(constraints: list[Constraint], value: Any) -> list[str]:
    """The messages of every constraint ``value`` does not satisfy (empty when all hold)."""
    return [str(c.message()) for c in constraints if not c.is_satisfied(value)]


def browser_hints(constraints: list[Constraint]) -> dict[str, Any]:
    """The HTML attributes of all constraints together (the tightest bound wins)."""
    hints: dict[str, Any] = {}
    for constraint in constraints:
        for name, value in constraint.hints().items():
            if name in ("min", "minlength") and name in hints:
                hints[name] = max(hints[name], value)
            elif name in ("max", "maxlength") and name in hints:
                hints[name] = min(hints[name], value)
            else:
                hints[name] = value
    return hints


def valid_values(constraints: list[Constraint]) -> list | None:
    """The values allowed by a ``valid_values`` constraint, if there is one."""
    for constraint in constraints:
        if constraint.operator == "valid_values":
            return list(constraint.argument)
    return None


_LENGTH_RE = re.compile(r"\.\{(\d+)(,(\d*))?\}")
_OPTIONAL_RE = re.compile(r"\(\|(.*)\)|\((.*)\|\)|\((.*)\)\?")


def describe_pattern(pattern: str, example: Any = None) -> str:
    """What a pattern asks for, in words: a length when that is all it checks, else
    ``example`` (a value known to match, such as the input's default), never the expression."""
    core = pattern.removeprefix("^").removesuffix("$")
    optional = _OPTIONAL_RE.fullmatch(core)
    if optional:
        core = next(group for group in optional.groups() if group is not None)
    length = _LENGTH_RE.fullmatch(core)
    if length:
        low, has_comma, high = length.groups()
        if not has_comma:
            if optional:
                return _l("must be exactly %(low)s characters long, or left empty", low=low)
            return _l("must be exactly %(low)s characters long", low=low)
        if high:
            if optional:
                return _l(
                    "must be %(low)s to %(high)s characters long, or left empty", low=low, high=high
                )
            return _l("must be %(low)s to %(high)s characters long", low=low, high=high)
        if optional:
            return _l("must be at least %(low)s characters long, or left empty", low=low)
        return _l("must be at least %(low)s characters long", low=low)
    if isinstance(example, str) and example:
        return _l('is not in the expected form; write it like "%(example)s"', example=example)
    return _l("is not in the form this field expects; see the description under it")
