"""Judgments about templates in words that can be shown in any of the portal's languages.

A judgment is stored with the revision and read later by admins who may speak another language
than the one who saved it, so it keeps its English message id and the values that fill it in
(``said``), and is translated only when shown (``translated``). A value may itself be such a
message (a leniency's title inside its warning); values from elsewhere (tosca-parser's findings,
names from the template) are shown as they are.
"""

from __future__ import annotations

from typing import Any


def N_(msgid: str) -> str:
    """Marks ``msgid`` for the translations file; it is translated only where it is shown."""
    return msgid


def said(msgid: str, **params: Any) -> dict:
    """A message with its values, kept as plain data so that it can be stored as JSON."""
    return {"msgid": msgid, "params": params}


def _filled(msgid: str, params: dict, translate) -> str:
    values = {
        key: _filled(value["msgid"], value.get("params") or {}, translate)
        if isinstance(value, dict) and "msgid" in value
        else value
        for key, value in params.items()
    }
    text = translate(msgid)
    # Without values a message holds no placeholders: a "%" in it is a plain percent sign.
    return text % values if values else text


def english(msgid: str, params: dict) -> str:
    """The message in English, as the command line and the logs show it."""
    return _filled(msgid, params, lambda text: text)


def translated(msgid: str, params: dict) -> str:
    """The message in the language of the person reading it (English outside a request)."""
    from flask_babel import gettext

    return _filled(msgid, params, gettext)
