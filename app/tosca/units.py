"""Scalar-units: the one reading of ``"4 GB"``, ``"30 m"`` or ``"2 GHz"`` for templates, forms and
quota accounting.

A form field, a constraint and the quota check must never disagree on what a researcher typed, so
all of them read units here. Units follow TOSCA Simple Profile 1.3 (section 3.3.6): GB, MB... are
decimal and GiB, MiB... binary; they are matched exactly first, then case-insensitively ("4 gb"),
and "KB" is read as "kB" as tosca-parser does. ``parse_scalar`` serves every scalar-unit type
(constraints compare base values); ``read_size`` gives sizes as exact byte counts (decimal
arithmetic, no float) for quotas. Both raise ``ValueError`` with a message for the person who
wrote the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from flask import has_app_context
from flask_babel import gettext as _

from app.formatting import format_decimal
from app.tosca.numbers import check_digits, decimal, whole

__all__ = [
    "SCALAR_UNITS",
    "SIZE_UNITS",
    "Scalar",
    "Size",
    "format_size",
    "parse_scalar",
    "read_size",
    "size_in_bytes",
]

# The factor converts to the kind's base unit (bytes, seconds, hertz).
SIZE_UNITS = {
    "B": 1,
    "kB": 1000,
    "KiB": 1024,
    "MB": 1000**2,
    "MiB": 1024**2,
    "GB": 1000**3,
    "GiB": 1024**3,
    "TB": 1000**4,
    "TiB": 1024**4,
}
TIME_UNITS = {
    "d": 86400,
    "h": 3600,
    "m": 60,
    "s": 1,
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
}
FREQUENCY_UNITS = {"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}

SCALAR_UNITS = {
    "scalar-unit.size": SIZE_UNITS,
    "scalar-unit.time": TIME_UNITS,
    "scalar-unit.frequency": FREQUENCY_UNITS,
}

# "KB" is common in the wild (and accepted by tosca-parser) though TOSCA spells it "kB".
_UNIT_ALIASES = {"KB": "kB"}
# A number and a unit; the unit may be missing so that a size in a template can be bare bytes.
_SCALAR_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*")


def canonical_unit(unit: str, units: dict) -> str | None:
    """``unit`` in its TOSCA spelling among ``units``, or None when it is not one of them."""
    if unit in units:
        return unit
    if unit in _UNIT_ALIASES and _UNIT_ALIASES[unit] in units:
        return _UNIT_ALIASES[unit]
    # Units are matched case-insensitively as a last resort ("4 gb"), as tosca-parser does.
    matches = [known for known in units if known.lower() == unit.lower()]
    return matches[0] if len(matches) == 1 else None


@dataclass(frozen=True)
class Scalar:
    """A number with a unit, e.g. ``Scalar(4, "GiB", "scalar-unit.size")``."""

    number: int | float
    unit: str
    kind: str

    @property
    def base(self) -> float:
        """The value in the kind's base unit (bytes, seconds or hertz)."""
        return self.number * SCALAR_UNITS[self.kind][self.unit]

    def __str__(self) -> str:
        return f"{self.number} {self.unit}"


def parse_scalar(value, kind: str) -> Scalar:
    """Parse ``"4 GB"``, ``"4GiB"`` or ``"1.5 h"`` into a ``Scalar`` of ``kind``.

    Raises ``ValueError`` when the number or unit is missing or the unit does not suit ``kind``.
    """
    units = SCALAR_UNITS[kind]
    if isinstance(value, Scalar):
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(
            _("must be a number followed by a unit (%(units)s)", units=", ".join(units))
        )
    match = _SCALAR_RE.fullmatch(str(value))
    if not match or not match.group(2):
        raise ValueError(
            _(
                "must be a number followed by a unit, e.g. %(example)s (units: %(units)s)",
                example=_example(kind),
                units=", ".join(units),
            )
        )
    number_text, unit_text = match.groups()
    unit = canonical_unit(unit_text, units)
    if unit is None:
        raise ValueError(_unknown_unit(unit_text, units))
    number = decimal(number_text) if "." in number_text else whole(number_text)
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    return Scalar(number, unit, kind)


def _size_example() -> str:
    return _(
        "must be a number followed by a unit, e.g. 4 GB (units: %(units)s)",
        units=", ".join(SIZE_UNITS),
    )


def _unknown_unit(unit_text: str, units) -> str:
    return _('unit "%(unit)s" is not one of: %(units)s', unit=unit_text, units=", ".join(units))


def _example(kind: str) -> str:
    return {"scalar-unit.size": "4 GB", "scalar-unit.time": "30 m"}.get(kind, "2 GHz")


@dataclass(frozen=True)
class Size:
    """A size as written: ``Size(Decimal("4"), "GiB")``; ``bytes`` is its exact value."""

    number: Decimal
    unit: str

    @property
    def bytes(self) -> int:
        return int(self.number * SIZE_UNITS[self.unit])

    def __str__(self) -> str:
        number = self.number.normalize()
        text = format(number, "f") if number == number.to_integral() else str(number)
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return f"{text} {self.unit}"


def read_size(value: Any, *, unit_required: bool = True) -> Size:
    """Read ``"4 GB"``, ``"4GiB"``, ``"1.5 tb"`` (or a number, when ``unit_required`` is off,
    taken as bytes: TOSCA's default unit for sizes written in a template).

    Raises ValueError, with a message for the person who wrote it, for anything else:
    a missing or unknown unit, a negative or non-numeric amount.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError(_("must be a number followed by a unit, e.g. 4 GB"))
    if isinstance(value, int | float | Decimal):
        if unit_required:
            raise ValueError(_size_example())
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            raise ValueError(_("must be a number followed by a unit, e.g. 4 GB")) from None
        if not number.is_finite() or number < 0:
            raise ValueError(_("must be a size of zero or more"))
        return Size(number, "B")
    match = _SCALAR_RE.fullmatch(value)
    if not match:
        raise ValueError(_size_example())
    number_text, unit_text = match.groups()
    if not unit_text:
        if unit_required:
            raise ValueError(_size_example())
        unit_text = "B"
    unit = canonical_unit(unit_text, SIZE_UNITS)
    if unit is None:
        raise ValueError(_unknown_unit(unit_text, SIZE_UNITS))
    return Size(Decimal(check_digits(number_text)), unit)


def size_in_bytes(value: Any) -> int:
    """The exact number of bytes of a size as a template or a form holds it (a bare number is
    bytes). Raises ValueError as ``read_size`` does."""
    return read_size(value, unit_required=False).bytes


def format_size(size: int | float) -> str:
    """Show bytes in the unit the figure was most likely written in: ``8 GB``, ``2 GiB``;
    fractions in the reader's way ("1.5 TB", "1,5 TB"). Unit symbols are the same in every
    language."""
    size = int(size)
    for unit, factor in (("TB", 10**12), ("TiB", 2**40), ("GB", 10**9), ("GiB", 2**30)):
        if size >= factor and size % factor == 0:
            return f"{_number(size // factor)} {unit}"
    if size >= 10**12:
        return f"{_number(round(size / 10**12, 1), '0.0')} TB"
    if size >= 10**9:
        return f"{_number(round(size / 10**9, 1), '0.0')} GB"
    if size >= 10**6:
        return f"{_number(round(size / 10**6))} MB"
    return f"{_number(size)} B"


def _number(number: int | float, pattern: str = "0") -> str:
    if has_app_context():
        return format_decimal(number, format=pattern)
    return f"{number:.1f}" if pattern == "0.0" else str(number)
