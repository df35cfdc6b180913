"""TOSCA value types that need more than a Python built-in: scalar-units, versions, timestamps.

Each parser accepts what a person types or what a template holds and raises ``ValueError`` with a
message for that person when the text is not a valid value.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from app.catalogue.numbers import decimal, whole

# Units per TOSCA Simple Profile 1.3, section 3.3.6; the factor converts to the base unit.
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
_SCALAR_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]+)\s*")


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


def _canonical_unit(unit: str, units: dict) -> str | None:
    if unit in units:
        return unit
    if unit in _UNIT_ALIASES and _UNIT_ALIASES[unit] in units:
        return _UNIT_ALIASES[unit]
    # Units are matched case-insensitively as a last resort ("4 gb"), as tosca-parser does.
    matches = [known for known in units if known.lower() == unit.lower()]
    return matches[0] if len(matches) == 1 else None


def parse_scalar(value, kind: str) -> Scalar:
    """Parse ``"4 GB"``, ``"4GiB"`` or ``"1.5 h"`` into a ``Scalar`` of ``kind``.

    Raises ``ValueError`` when the number or unit is missing or the unit does not suit ``kind``.
    """
    units = SCALAR_UNITS[kind]
    if isinstance(value, Scalar):
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"must be a number followed by a unit ({', '.join(units)})")
    match = _SCALAR_RE.fullmatch(str(value))
    if not match:
        raise ValueError(
            f"must be a number followed by a unit, e.g. {_example(kind)} "
            f"(units: {', '.join(units)})"
        )
    number_text, unit_text = match.groups()
    unit = _canonical_unit(unit_text, units)
    if unit is None:
        raise ValueError(f'unit "{unit_text}" is not one of: {", ".join(units)}')
    number = decimal(number_text) if "." in number_text else whole(number_text)
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    return Scalar(number, unit, kind)


def _example(kind: str) -> str:
    return {"scalar-unit.size": "4 GB", "scalar-unit.time": "30 m"}.get(kind, "2 GHz")


_VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+)(?:\.([A-Za-z0-9_]+)(?:-(\d+))?)?)?")


def parse_version(value) -> tuple:
    """Parse a TOSCA version ``major.minor[.fix[.qualifier[-build]]]`` into a sortable tuple.

    Raises ``ValueError`` for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("must be a version such as 1.0 or 2.1.3")
    match = _VERSION_RE.fullmatch(str(value).strip())
    if not match:
        raise ValueError("must be a version such as 1.0 or 2.1.3")
    major, minor, fix, qualifier, build = match.groups()
    return (whole(major), whole(minor), whole(fix or 0), qualifier or "", whole(build or 0))


def parse_timestamp(value) -> dt.datetime:
    """Parse an ISO 8601 / YAML timestamp; a bare date means midnight, no zone means UTC.

    Raises ``ValueError`` for anything else.
    """
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip().replace(" ", "T", 1)
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = dt.datetime.fromisoformat(text)
        except ValueError:
            raise ValueError("must be a date and time such as 2025-01-31T12:00:00Z") from None
    else:
        raise ValueError("must be a date and time such as 2025-01-31T12:00:00Z")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def format_timestamp(moment: dt.datetime) -> str:
    """Format a timestamp the way it is sent to the orchestrator (ISO 8601, ``Z`` for UTC)."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text
