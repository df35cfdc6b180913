"""The Italian catalogue keeps up with the code: every word marked in app/ and templates/ is in
translations/it/LC_MESSAGES/messages.po, translated, checked, and with the same placeholders.

When these fail: run ``make translations``, then translate the new entries in messages.po
(translations/GLOSSARY.md has the words to use) and remove the ``fuzzy`` flag of those checked.
"""

import ast
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po, write_po
from jinja2 import Environment, nodes

from tests.conftest import compile_stale_catalogues

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "translations" / "it" / "LC_MESSAGES" / "messages.po"
GETTEXT_NAMES = {"_", "_l", "gettext", "lazy_gettext", "ngettext", "lazy_ngettext"}
# "%%" is a literal percent sign; any other "%" starts a placeholder, named or not.
PLACEHOLDER = re.compile(r"%%|%(\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z]")


def _extract_flags() -> list[str]:
    """The Makefile's EXTRACT_FLAGS, so that the check extracts exactly as ``make translations``."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(r"^EXTRACT_FLAGS\s*:?=\s*(.+)$", text, re.MULTILINE)
    assert match, "the Makefile defines no EXTRACT_FLAGS"
    return shlex.split(match.group(1))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """The words marked in the code today, extracted as ``make translations`` does."""
    pot = tmp_path_factory.mktemp("extract") / "messages.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [str(pybabel), "-q", "extract", *_extract_flags(), "-o", str(pot), "."],
        cwd=ROOT,
        check=True,
        timeout=300,
    )
    with pot.open("rb") as f:
        return read_po(f)


@pytest.fixture(scope="module")
def italian():
    with CATALOGUE.open("rb") as f:
        return read_po(f, locale="it")


def _where(message) -> str:
    return ", ".join(f"{path}:{line}" for path, line in message.locations[:3]) or "?"


def _ids(message) -> tuple[str, ...]:
    return message.id if isinstance(message.id, tuple) else (message.id,)


def _strings(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def placeholders(text: str) -> list[str]:
    return sorted(match.group(0) for match in PLACEHOLDER.finditer(text) if match.group(0) != "%%")


def missing_from(italian, extracted) -> list[str]:
    return [
        f"{_where(m)}: {m.id!r}" for m in extracted if m.id and italian.get(m.id, m.context) is None
    ]


def test_every_marked_word_is_in_the_catalogue(extracted, italian):
    """A message in the code or templates that messages.po lacks: the catalogue is stale."""
    missing = missing_from(italian, extracted)
    assert missing == [], (
        f"{len(missing)} messages are not in messages.po: run make translations, then translate "
        "them.\n" + "\n".join(missing)
    )


def test_every_entry_has_a_checked_italian_translation(italian):
    untranslated = [
        f"{_where(m)}: {m.id!r}" + (" (fuzzy)" if m.fuzzy else "")
        for m in italian
        if m.id and (m.fuzzy or not all(_strings(m)))
    ]
    assert untranslated == [], (
        f"{len(untranslated)} entries of messages.po have no checked Italian (empty msgstr, or "
        "marked fuzzy):\n" + "\n".join(untranslated)
    )


def test_translations_keep_the_placeholders_of_the_english(italian):
    """A renamed or dropped placeholder fails at display (or loses a figure); a stray "%" breaks
    a template's message."""
    wrong = []
    for m in italian:
        if not m.id or not any(_strings(m)):
            continue
        ids, strings = _ids(m), _strings(m)
        if len(ids) == 1:
            if placeholders(strings[0]) != placeholders(ids[0]):
                wrong.append(f"{_where(m)}: {ids[0]!r} -> {strings[0]!r}")
            continue
        # Plurals: the "one" form may leave the number out ("un'altra sessione"); the others
        # carry the plural's placeholders.
        known = set(placeholders(ids[0])) | set(placeholders(ids[1]))
        if not set(placeholders(strings[0])) <= known or any(
            placeholders(s) != placeholders(ids[1]) for s in strings[1:]
        ):
            wrong.append(f"{_where(m)}: {ids!r} -> {strings!r}")
    assert wrong == [], "placeholders differ between msgid and msgstr:\n" + "\n".join(wrong)


def test_every_entry_is_still_asked_for_by_the_code(extracted, italian):
    """An entry no marked message asks for any more: the catalogue is stale the other way
    (make translations drops it)."""
    unused = [
        f"{_where(m)}: {m.id!r}" for m in italian if m.id and extracted.get(m.id, m.context) is None
    ]
    assert unused == [], (
        f"{len(unused)} entries of messages.po are no longer in the code: run make "
        "translations.\n" + "\n".join(unused)
    )


def test_the_catalogue_holds_no_obsolete_entries(italian):
    obsolete = [repr(m.id) for m in italian.obsolete.values()]
    assert obsolete == [], (
        "messages.po keeps obsolete (#~) entries: delete them (the code no longer asks for "
        "them).\n" + "\n".join(obsolete)
    )


def test_a_word_marked_since_the_last_update_is_found():
    """The check itself: a message the code has and the catalogue lacks."""
    code, catalogue = Catalog(locale="it"), Catalog(locale="it")
    for message in ("Launch", "Delete"):
        code.add(message, locations=[("templates/x.html", 1)])
    catalogue.add("Launch", "Avvia")
    assert missing_from(catalogue, code) == ["templates/x.html:1: 'Delete'"]


def test_the_tests_compile_a_translation_edited_since_the_last_compile(tmp_path):
    folder = tmp_path / "it" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po, mo = folder / "messages.po", folder / "messages.mo"

    def write(translation: str, mtime: int) -> None:
        catalog = Catalog(locale="it")
        catalog.add("Launch", translation)
        with po.open("wb") as f:
            write_po(f, catalog)
        os.utime(po, (mtime, mtime))

    def compiled() -> str:
        with mo.open("rb") as f:
            return read_mo(f).get("Launch").string

    write("Avvia", 1_000_000)
    compile_stale_catalogues(tmp_path)
    assert compiled() == "Avvia"
    write("Avvia ora", int(mo.stat().st_mtime) + 10)
    compile_stale_catalogues(tmp_path)
    assert compiled() == "Avvia ora"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("%(used)s of %(limit)s cores", ["%(limit)s", "%(used)s"]),
        ("100%% sure, %(num)d left", ["%(num)d"]),
        ("%s and %.1f", ["%.1f", "%s"]),
        ("no placeholder", []),
    ],
)
def test_placeholders_are_read_as_python_reads_them(text, found):
    assert placeholders(text) == found


# --- Sentences are whole messages ------------------------------------------------------------


def _is_whole_message(arg: ast.expr) -> bool:
    """A message given as a literal, or held in a name (an id marked where it was written and
    translated where it is shown); never assembled in the call."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str)
    return isinstance(arg, ast.Name | ast.Attribute | ast.Subscript)


def assembled_messages(source: str, filename: str = "<source>") -> list[str]:
    """Calls of the gettext functions whose message is an f-string, a concatenation, a
    formatting or a call (``"".join``, ``.format``): text no translator can see whole."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in GETTEXT_NAMES or not node.args:
            continue
        messages = node.args[:2] if name.endswith("ngettext") else node.args[:1]
        if not all(_is_whole_message(arg) for arg in messages):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:100]}")
    return found


def test_no_message_in_the_code_is_assembled_inside_gettext():
    found = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        found += assembled_messages(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], (
        "Write each sentence whole, with named placeholders: _('%(a)s of %(b)s', a=..., b=...)\n"
        + "\n".join(found)
    )


def test_no_message_in_the_templates_is_assembled_inside_gettext():
    env = Environment(extensions=["jinja2.ext.i18n"], autoescape=True)  # parsed, never rendered
    found = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        tree = env.parse(path.read_text(encoding="utf-8"))
        for call in tree.find_all(nodes.Call):
            if not isinstance(call.node, nodes.Name) or call.node.name not in GETTEXT_NAMES:
                continue
            count = 2 if call.node.name == "ngettext" else 1
            if not all(
                isinstance(arg, nodes.Const | nodes.Name | nodes.Getattr)
                for arg in call.args[:count]
            ):
                found.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert found == [], "a template joins pieces inside _(): " + ", ".join(found)


@pytest.mark.parametrize(
    ("source", "assembled"),
    [
        ('_("Launch")', False),
        ('_l("%(n)s cores", n=4)', False),
        ('ngettext("%(num)d GPU", "%(num)d GPUs", n)', False),
        ("_(event.message_id)", False),
        ('_(f"Welcome, {name}")', True),
        ('_("Ended " + str(n) + " sessions")', True),
        ('gettext("%s left" % n)', True),
        ('lazy_gettext(", ".join(parts))', True),
        ('ngettext("one", f"{n} many", n)', True),
    ],
)
def test_an_assembled_message_is_found(source, assembled):
    """The check itself, on planted calls."""
    assert bool(assembled_messages(source)) is assembled
