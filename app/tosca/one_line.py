"""The template's words people read hold no control characters (see ``app.text``).

Names, labels, tags, placeholders, tab and preset names and groups are one line: they end up in
a mail's subject, a table cell, a button, a terminal. Descriptions, help and pattern messages
are prose and may come from a TOSCA ``description: |`` block, so they may hold line breaks, but
no other control character. Checked on the parsed result, after the fallbacks and with the
``translations`` block, so that every entrance (the admin pages, ``flask catalogue import`` and
``validate``, the folders an import reads) refuses the same words in the same way.
"""

from __future__ import annotations

from typing import Any

from app.text import code_points, control_characters
from app.tosca.wording import N_
from app.tosca.yamlsafe import Problem

ONE_LINE = frozenset({"name", "label", "placeholder", "tags", "visible_to", "tabs"})
PROSE = frozenset({"description", "help", "pattern_message"})
# The parsed parts that hold words; the rest (values, constraints, defaults) are data.
_PARTS = ("name", "description", "tags", "visible_to", "inputs", "outputs", "tabs", "presets")
_NOT_WORDS = frozenset({"values", "default", "choices", "constraints"})


def control_character_problems(parsed) -> list[Problem]:
    """A sidecar problem for each word of ``parsed`` holding a control character, named by
    its place ("inputs.size.label", "translations.it.name")."""
    found: list[Problem] = []
    words = {part: _plain(getattr(parsed, part)) for part in _PARTS}
    _walk({**words, "translations": parsed.translations}, (), None, found)
    return found


def _plain(value: Any) -> Any:
    """Inputs and outputs as a mapping by their names, so that a place reads "inputs.size"."""
    if isinstance(value, list) and value and hasattr(value[0], "__dataclass_fields__"):
        return {spec.name: vars(spec) for spec in value}
    return value


def _walk(value: Any, path: tuple, kind: str | None, found: list[Problem]) -> None:
    """``kind``: "one" or "prose" after the nearest key that says which, None before one."""
    if isinstance(value, dict):
        for key, inner in value.items():
            key = str(key)
            if key in _NOT_WORDS:
                continue
            # A key naming something (an input, a tab, a language) is a one-line word too.
            _report(key, (*path, key), "one", found)
            inner_kind = "one" if key in ONE_LINE else "prose" if key in PROSE else kind
            _walk(inner, (*path, key), inner_kind, found)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _walk(inner, (*path, str(index)), kind, found)
    elif isinstance(value, str) and kind is not None:
        _report(value, path, kind, found)


def _report(text: str, path: tuple, kind: str, found: list[Problem]) -> None:
    characters = [c for c in control_characters(text) if not (kind == "prose" and c == "\n")]
    if not characters:
        return
    place = ".".join(path)
    if kind == "prose":
        msgid = N_(
            "%(place)s may hold line breaks but no other control character such as a tab, a "
            "carriage return or an escape (found %(characters)s)."
        )
    else:
        msgid = N_(
            "%(place)s must be a single line without control characters such as line breaks, "
            "tabs or escapes (found %(characters)s)."
        )
    found.append(
        Problem.of(msgid, None, "sidecar", place=place, characters=code_points(characters))
    )
