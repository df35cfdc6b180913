"""IM's error answers in a sentence for researchers.

IM 2.0 answers a refused call with the text of the Python exception it met, often with its
traceback and the repr of a library's connection error (``HTTPSConnectionPool(...)``,
``NameResolutionError(...)``). ``for_people`` says what it means for the person who launched;
the text itself, trimmed and with credentials masked (``client.trimmed``), goes to the portal's
log and stays on the error as ``detail``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flask_babel import gettext as _

# Signs that a message is a program's words, not a sentence for people.
_PROGRAM_TEXT = re.compile(
    r"Traceback|File \"|\b[A-Z]\w*(?:Error|Exception)\b\s*[:(]|ConnectionPool|\[Errno|"
    r"Max retries exceeded|object at 0x|Error parsing",
)


def _download(match: re.Match) -> str:
    return _(
        "The Infrastructure Manager could not download %(address)s, a script the template's "
        "types name, so it made nothing. It must be able to reach that address: please tell "
        "your administrators.",
        address=match.group("address"),
    )


def _type(match: re.Match) -> str:
    return _(
        "The Infrastructure Manager does not know the type %(type)s that the template uses: it "
        "could not load the type definitions the template imports, so it made nothing. Please "
        "tell your administrators.",
        type=match.group("type"),
    )


# (pattern, sentence): the first pattern found in IM's answer gives the sentence.
_RULES: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    (
        re.compile(r"Error downloading the implementation script '(?P<address>[^'\s]{1,300})'"),
        _download,
    ),
    (re.compile(r'Type "(?P<type>[\w.:-]{1,200})" is not a valid type'), _type),
    (
        re.compile(r"Error parsing (?:TOSCA template|request body)", re.I),
        lambda m: _(
            "The Infrastructure Manager could not read the template, so it made nothing. Your "
            "administrators can read what it said in the portal's log."
        ),
    ),
]


def for_people(said: str) -> str:
    """What IM's error answer ``said`` (already trimmed and masked) means for a researcher:
    a sentence of the portal's where the answer is a program's words, else the answer as it
    is (IM's plain refusals, such as "Access to this infrastructure not granted")."""
    for pattern, sentence in _RULES:
        match = pattern.search(said)
        if match:
            return sentence(match)
    if _PROGRAM_TEXT.search(said):
        return _(
            "The Infrastructure Manager answered with an error in its own program's words. "
            "Your administrators can read what it said in the portal's log."
        )
    return said
