"""Sizes: the one reading of ``"4 GB"`` shared by the launch forms and quota accounting.

A form field and the quota check must never disagree on what a researcher typed, so both read
sizes here. Units follow TOSCA (section 3.3.6.4): GB, MB... are decimal and GiB, MiB...
binary; they are matched exactly first, then case-insensitively ("4 gb"), and "KB" is read as
"kB" as tosca-parser does. Byte counts are exact integers (decimal arithmetic, no float).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from app.catalogue.numbers import check_digits
from app.catalogue.types import SIZE_UNITS

__all__ = ["Size", "format_size", "read_size", "size_in_bytes"]

_SIZE_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*")
_ALIASES = {"KB": "kB"}
_EXAMPLE = "a number followed by a unit, e.g. 4 GB"


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


def _unit(text: str) -> str | None:
    if text in SIZE_UNITS:
        return text
    if text in _ALIASES:
        return _ALIASES[text]
    matches = [known for known in SIZE_UNITS if known.lower() == text.lower()]
    return matches[0] if len(matches) == 1 else None


def read_size(value: Any, *, unit_required: bool = True) -> Size:
    """Read ``"4 GB"``, ``"4GiB"``, ``"1.5 tb"`` (or a number, when ``unit_required`` is off,
    taken as bytes: TOSCA's default unit for sizes written in a template).

    Raises ValueError, with a message for the person who wrote it, for anything else:
    a missing or unknown unit, a negative or non-numeric amount.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError(f"must be {_EXAMPLE}")
    if isinstance(value, int | float | Decimal):
        if unit_required:
            raise ValueError(f"must be {_EXAMPLE} (units: {', '.join(SIZE_UNITS)})")
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            raise ValueError(f"must be {_EXAMPLE}") from None
        if not number.is_finite() or number < 0:
            raise ValueError("must be a size of zero or more")
        return Size(number, "B")
    match = _SIZE_RE.fullmatch(value)
    if not match:
        raise ValueError(f"must be {_EXAMPLE} (units: {', '.join(SIZE_UNITS)})")
    number_text, unit_text = match.groups()
    if not unit_text:
        if unit_required:
            raise ValueError(f"must be {_EXAMPLE} (units: {', '.join(SIZE_UNITS)})")
        unit_text = "B"
    unit = _unit(unit_text)
    if unit is None:
        raise ValueError(f'unit "{unit_text}" is not one of: {", ".join(SIZE_UNITS)}')
    return Size(Decimal(check_digits(number_text)), unit)


def size_in_bytes(value: Any) -> int:
    """The exact number of bytes of a size as a template or a form holds it (a bare number is
    bytes). Raises ValueError as ``read_size`` does."""
    return read_size(value, unit_required=False).bytes


def format_size(size: int | float) -> str:
    """Show bytes in the unit the figure was most likely written in: ``8 GB``, ``2 GiB``."""
    size = int(size)
    for unit, factor in (("TB", 10**12), ("TiB", 2**40), ("GB", 10**9), ("GiB", 2**30)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    if size >= 10**12:
        return f"{size / 10**12:.1f} TB"
    if size >= 10**9:
        return f"{size / 10**9:.1f} GB"
    if size >= 10**6:
        return f"{size / 10**6:.0f} MB"
    return f"{size} B"
