"""How long a launch value may be: INPUT_MAX_LENGTH and its per-kind overrides, the digits of a
whole number, and the comment of an SSH key (see config/defaults.py).

Outside a request (parsing a template from the command line) the committed defaults apply.
This is the one place in the TOSCA library that reads the app's settings (``_setting``): the
limits bound every field class, and threading them through each call would touch them all.
"""

from __future__ import annotations

from functools import lru_cache

from flask import Config, current_app, has_app_context

from app.config import PROJECT_ROOT


@lru_cache(maxsize=1)
def _committed() -> Config:
    config = Config(str(PROJECT_ROOT))
    config.from_pyfile(str(PROJECT_ROOT / "config" / "defaults.py"))
    return config


def _setting(name: str):
    # An app built without the portal's settings (a bare test app) gets the committed ones.
    if has_app_context() and name in current_app.config:
        return current_app.config[name]
    return _committed()[name]


def max_length(kind: str) -> int:
    """The most characters a value of input kind ``kind`` may have."""
    per_kind = _setting("INPUT_MAX_LENGTHS") or {}
    return int(per_kind.get(kind, _setting("INPUT_MAX_LENGTH")))


def max_digits() -> int:
    """The most digits a whole number may have."""
    return int(_setting("INPUT_MAX_DIGITS"))


def ssh_comment_max() -> int:
    """The most characters the comment of an SSH public key may have."""
    return int(_setting("SSH_KEY_COMMENT_MAX"))


def too_long(text: str, limit: int) -> str:
    """The message for a value of ``text``'s length over ``limit``."""
    return (
        f"This is {len(text):,} characters long; the most this field takes is {limit:,}. "
        "Shorten it and send the form again."
    )
