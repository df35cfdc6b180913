"""The one bound on the numbers people type: every whole or decimal number read from a form,
a list entry, a port, a size or a YAML/JSON value passes through here before Python converts
it, so a 10,000-digit number gets the portal's sentence, never Python's own limit message
(meant for programmers) or a minute of arithmetic."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml
from flask import has_app_context
from flask_babel import gettext as _

from app.formatting import format_decimal
from app.tosca.settings import setting

_DIGIT_RUN = re.compile(r"\d+")


class TooManyDigits(ValueError):
    """A number with more digits than INPUT_MAX_DIGITS; the message is a whole sentence for
    the person, in their language."""

    def __init__(self, digits: int, most: int):
        self.digits, self.most = digits, most
        super().__init__(
            _(
                "This is a number of %(digits)s digits; numbers here have at most %(most)s.",
                digits=grouped(digits),
                most=grouped(most),
            )
        )


def grouped(number: int | float) -> str:
    """``number`` with the reader's digit grouping ("10,000", "10.000"); outside the portal
    (a script parsing a template) the English grouping."""
    if has_app_context():
        return format_decimal(number)
    return f"{number:,}"


def max_digits() -> int:
    """The most digits a number may have (INPUT_MAX_DIGITS)."""
    return int(setting("INPUT_MAX_DIGITS"))


def _refuse(digits: int) -> TooManyDigits:
    return TooManyDigits(digits, max_digits())


def check_digits(text: str) -> str:
    """``text`` unchanged when none of its runs of digits is longer than ``max_digits()``.

    Raises TooManyDigits otherwise.
    """
    longest = max((len(run) for run in _DIGIT_RUN.findall(text)), default=0)
    if longest > max_digits():
        raise _refuse(longest)
    return text


def check_int(value: int) -> int:
    """``value`` unchanged when it has at most ``max_digits()`` digits; raises TooManyDigits
    otherwise (an int from a JSON caller is already converted, so its length is checked)."""
    magnitude = abs(value)
    if magnitude.bit_length() > 4000:
        # str() itself refuses numbers this long; their length follows from their bits.
        digits = int(magnitude.bit_length() * math.log10(2)) + 1
    else:
        digits = len(str(magnitude))
    if digits > max_digits():
        raise _refuse(digits)
    return value


def whole(text: str) -> int:
    """``int(text)`` for text of bounded digits; raises TooManyDigits or ValueError."""
    return int(check_digits(str(text)))


def decimal(text: str) -> float:
    """``float(text)`` for text of bounded digits; raises TooManyDigits or ValueError."""
    return float(check_digits(str(text)))


def load_json(text: str) -> Any:
    """JSON whose numbers are bounded; raises TooManyDigits or json.JSONDecodeError."""
    return json.loads(text, parse_int=whole, parse_float=decimal)


class _BoundedLoader(yaml.SafeLoader):
    """YAML's safe loader with its numbers bounded before conversion."""

    def construct_yaml_int(self, node):
        check_digits(str(node.value))
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        check_digits(str(node.value))
        return super().construct_yaml_float(node)


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)
_BoundedLoader.add_constructor("tag:yaml.org,2002:float", _BoundedLoader.construct_yaml_float)


def load_yaml(text: str) -> Any:
    """A YAML value typed by a person, with numbers bounded; raises TooManyDigits or
    yaml.YAMLError."""
    return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass
