"""Who made a change when no person did: kept as a neutral kind, worded when shown.

A change made from the command line, by the catalogue's folder import or by the first setup
is recorded with one of these kinds where a person's username goes (a revision's author, a
template's or a library's last changer, who granted a role); pages word it in the reader's
language (``who``), never the language of the moment it was stored. The kinds start with a
colon so that no account's name is mistaken for one (the upgrade that converted the English
words stored before left alone the names that are accounts).
"""

from flask_babel import lazy_gettext as _l

COMMAND_LINE = ":command-line"
FOLDER_IMPORT = ":folder-import"
SETUP = ":setup"

_WORDS = {
    COMMAND_LINE: _l("command line"),
    FOLDER_IMPORT: _l("catalogue import"),
    SETUP: _l("first setup"),
}


def who(stored: str | None) -> str:
    """The words for a stored author: a kind in the reader's language, a person's name as it
    is ("" stays "")."""
    words = _WORDS.get(stored or "")
    return str(words) if words is not None else (stored or "")
