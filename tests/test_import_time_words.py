"""No translated word is fixed when a module is imported: whatever a module, a class or a form
holds from start-up (a field's help, a dict of labels, a tuple of choices) stays a lazy string
or a message id, and is put in the reader's language when a page is served. A sentence
formatted at import time (``f"{lazy} ..."``, ``str(lazy)``, ``lazy % ...``) would stay English
on every Italian page; this finds any such text, by the English messages it contains."""

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from wtforms.fields.core import UnboundField

import app

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "translations" / "it" / "LC_MESSAGES" / "messages.po"
PLACEHOLDER = re.compile(r"%\([^)]*\)[#0 +-]*\d*(?:\.\d+)?[a-zA-Z]|%[sd]")
# Shorter messages ("Cap", "Portal metadata") are words any text may hold by chance.
SHORTEST, FEWEST_WORDS = 12, 3


def _catalogue():
    with CATALOGUE.open("rb") as f:
        return read_po(f, locale="it")


def message_ids() -> set[str]:
    """Every English message, singular and plural."""
    found = set()
    for message in _catalogue():
        found.update(message.id if isinstance(message.id, tuple) else (message.id,))
    return found


def english_messages() -> list[tuple[str, re.Pattern]]:
    """Each English message the catalogue translates differently, as a pattern in which its
    placeholders match anything."""
    found = []
    for message in _catalogue():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for english, italian in zip(ids, strings, strict=False):
            fixed = PLACEHOLDER.sub("", english)
            if not english or english == italian or len(fixed) < SHORTEST:
                continue
            if len(fixed.split()) < FEWEST_WORDS:
                continue
            parts = [re.escape(p) for p in PLACEHOLDER.split(english)]
            found.append((english, re.compile(".+?".join(parts), re.DOTALL)))
    return found


def _held(value, depth=0):
    """The plain strings ``value`` holds at start-up, looking into containers, dataclasses
    and WTForms' unbound fields (a form class's fields, with their label and help)."""
    if depth > 4:
        return
    if isinstance(value, str):
        if type(value) is str:
            yield value
        return
    if isinstance(value, dict):
        for item in value.values():
            yield from _held(item, depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _held(item, depth + 1)
    elif isinstance(value, UnboundField):
        yield from _held(list(value.args), depth + 1)
        yield from _held(value.kwargs, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _held(getattr(value, field.name, None), depth + 1)


def start_up_texts() -> list[tuple[str, str]]:
    """(where, text) for every plain string the portal's modules and classes hold once
    imported, docstrings aside."""
    found = []
    for module_info in pkgutil.walk_packages(app.__path__, "app."):
        if ".emulator" in module_info.name:
            continue  # the orchestrator's stand-in speaks as the orchestrator, in English
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                defaults = [*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()]
                for text in _held(defaults):
                    found.append((f"{module.__name__}.{name}()", text))
                continue
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attribute, held in vars(value).items():
                    if attribute.startswith("__"):
                        continue
                    for text in _held(held):
                        found.append((f"{module.__name__}.{name}.{attribute}", text))
                continue
            for text in _held(value):
                found.append((f"{module.__name__}.{name}", text))
    return found


def fixed_at_import(texts, messages, ids) -> list[str]:
    """The texts that hold an English message without being a message themselves (a message
    id kept whole is translated where it is shown)."""
    found = []
    for where, text in texts:
        if text in ids:
            continue
        for english, pattern in messages:
            if pattern.search(text):
                found.append(f"{where}: {text[:90]!r} holds {english[:60]!r}")
                break
    return found


def test_no_module_holds_a_sentence_put_in_words_at_start_up():
    found = fixed_at_import(start_up_texts(), english_messages(), message_ids())
    assert found == [], (
        "These texts were put in words once, at import, so they stay English on Italian "
        "pages: keep them lazy (lazy_gettext, LazyString) or format them when shown.\n"
        + "\n".join(found)
    )


# Translated now, in the language of whoever imports the module (nobody: English).
EAGER = {"_", "gettext", "ngettext", "pgettext", "npgettext"}


def eager_at_import(source: str, filename: str = "<source>") -> list[str]:
    """Calls of the eager gettext functions that run when the module is imported: in its
    body, a class body, a decorator or a default argument, not inside a function."""
    found = []

    def visit(node, at_import: bool):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for outer in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                if outer is not None:
                    visit(outer, at_import)
            return
        if isinstance(node, ast.Lambda):
            return
        if at_import and isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in EAGER:
                found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:80]}")
        for child in ast.iter_child_nodes(node):
            visit(child, at_import)

    visit(ast.parse(source, filename), True)
    return found


def test_no_module_translates_eagerly_when_imported():
    found = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        found += eager_at_import(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], (
        "Translated once, at import, in no one's language: use lazy_gettext (_l) there.\n"
        + "\n".join(found)
    )


@pytest.mark.parametrize(
    ("source", "eager"),
    [
        ('HELP = _("Offered on the launch form.")', True),
        ('class F:\n    label = gettext("Name")', True),
        ('def f(x=_("Name")):\n    return x', True),
        ('HELP = _l("Offered on the launch form.")', False),
        ('def f():\n    return _("Name")', False),
        ('words = lambda: _("Name")', False),
    ],
)
def test_an_eager_translation_at_import_is_found(source, eager):
    """The check itself, on planted modules."""
    assert bool(eager_at_import(source)) is eager


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Offered on the launch form.", False),  # a message id, translated when shown
        ("Offered on the launch form. Empty: the next level decides.", True),
        ("Choose 3 days or less: the longest this application may run at first.", True),
        ("spam and eggs", False),
    ],
)
def test_a_sentence_formatted_at_import_is_found(text, fixed):
    """The check itself, on planted texts."""
    found = fixed_at_import([("planted", text)], english_messages(), message_ids())
    assert bool(found) is fixed
