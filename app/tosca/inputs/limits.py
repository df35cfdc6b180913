"""How long a launch value may be: INPUT_MAX_LENGTH and its per-kind overrides, the digits of a
whole number, and the comment of an SSH key (see config/defaults.py).

Outside a request (parsing a template from the command line) the committed defaults apply.
The app's settings are read through ``app.tosca.settings``, the one place in the TOSCA library
that reads them: the limits bound every field class, and threading them through each call
would touch them all. The digits of a number are bounded in ``app.tosca.numbers``.
"""

from __future__ import annotations

from flask_babel import ngettext

from app.tosca.numbers import grouped, max_digits
from app.tosca.settings import setting as _setting

__all__ = ["max_digits", "max_length", "ssh_comment_max", "too_long"]


def max_length(kind: str) -> int:
    """The most characters a value of input kind ``kind`` may have."""
    per_kind = _setting("INPUT_MAX_LENGTHS") or {}
    return int(per_kind.get(kind, _setting("INPUT_MAX_LENGTH")))


def ssh_comment_max() -> int:
    """The most characters the comment of an SSH public key may have."""
    return int(_setting("SSH_KEY_COMMENT_MAX"))


def too_long(text: str, limit: int) -> str:
    """The message for a value of ``text``'s length over ``limit``."""
    return ngettext(
        "This is %(length)s characters long; the most this field takes is %(limit)s. "
        "Shorten it and send the form again.",
        "This is %(length)s characters long; the most this field takes is %(limit)s. "
        "Shorten it and send the form again.",
        limit,
        length=grouped(len(text)),
        limit=grouped(limit),
    )
