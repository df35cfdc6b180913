"""A template's own words in other languages: the sidecar's ``translations`` block (and the
``display_name_<code>``/``description_<code>``/``tags_<code>`` keys of the TOSCA ``metadata``),
checked when a revision is saved and laid over the default-language words when a page reads
them (``ParsedTemplate.localised``).

What is translated: the name, description and tags, tab names, each input's label, help,
placeholder and pattern message, each preset's name and description, each output's label.
Everything else (values, choices, widgets) is the same in every language. A word missing in a
language falls back to the default-language word, field by field.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from flask import has_app_context
from flask_babel import force_locale, get_locale
from flask_babel import lazy_gettext as _l

from app.i18n import LANGUAGES
from app.tosca.wording import N_, said

# "it", "pt-BR", "zh_Hant": the shape of a language code, whether the portal speaks it or not.
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
INPUT_WORDS = ("label", "help", "placeholder", "pattern_message")
_LANGUAGE_KEYS = {
    "name": str,
    "description": str,
    "tags": (list, str),
    "tabs": dict,
    "inputs": dict,
    "presets": dict,
    "outputs": dict,
}
_INPUT_KEYS = dict.fromkeys(INPUT_WORDS, str)
_PRESET_KEYS = {"name": str, "description": str}
_OUTPUT_KEYS = {"label": str, "description": str}
# TOSCA metadata values are strings: ``display_name_it``, ``description_it``, ``tags_it``.
TOSCA_KEYS = {"display_name": "name", "description": "description", "tags": "tags"}


def current_language() -> str | None:
    """The language of the request (or of ``force_locale``) being served; None outside one."""
    if not has_app_context():
        return None
    locale = get_locale()
    return locale.language if locale is not None else None


def split_tags(tags: Any) -> list[str]:
    if isinstance(tags, str):
        tags = tags.split(",")
    if not isinstance(tags, list):
        return []
    return [str(tag).strip() for tag in tags if str(tag).strip()]


# Per section: the sentence for a name the template does not have, and what an entry is called.
_SECTIONS = {
    "tabs": (N_('%(what)s names the tab "%(name)s", which the template does not have.'), None),
    "inputs": (
        N_('%(what)s names the input "%(name)s", which the template does not have.'),
        N_('Translations "%(language)s": Input "%(name)s"'),
    ),
    "presets": (
        N_('%(what)s names the preset "%(name)s", which the template does not have.'),
        N_('Translations "%(language)s": Preset "%(name)s"'),
    ),
    "outputs": (
        N_('%(what)s names the output "%(name)s", which the template does not have.'),
        N_('Translations "%(language)s": Output "%(name)s"'),
    ),
}


def _check_names(check, data: dict, path: tuple, known: Collection[str], what: dict, section):
    """Keep the entries of ``data`` that name a known tab, input...; report the others."""
    for name in list(data):
        if name not in known:
            check.report((*path, name), _SECTIONS[section][0], what=what, name=str(name))
            data.pop(name)
    return data


def _check_language(check, code: str, raw: Any, known: dict[str, Collection[str]]) -> dict:
    path = ("translations", code)
    what = said(N_('Translations "%(language)s"'), language=code)
    good = check.check_keys(raw, path, _LANGUAGE_KEYS, what)
    words: dict[str, Any] = {}
    for key in ("name", "description"):
        if str(good.get(key) or "").strip():
            words[key] = str(good[key]).strip()
    if "tags" in good:
        words["tags"] = split_tags(good["tags"])
    tabs = _check_names(
        check, dict(good.get("tabs", {})), (*path, "tabs"), known["tabs"], what, "tabs"
    )
    for tab, word in list(tabs.items()):
        if not isinstance(word, str):
            check.report(
                (*path, "tabs", tab),
                N_('%(what)s: the name of tab "%(tab)s" must be text.'),
                what=what,
                tab=str(tab),
            )
            tabs.pop(tab)
    sections = (("inputs", _INPUT_KEYS), ("presets", _PRESET_KEYS), ("outputs", _OUTPUT_KEYS))
    for section, allowed in sections:
        entries = _check_names(
            check, dict(good.get(section, {})), (*path, section), known[section], what, section
        )
        entry = _SECTIONS[section][1]
        words[section] = {
            name: check.check_keys(
                settings or {},
                (*path, section, name),
                allowed,
                said(entry, language=code, name=str(name)),
            )
            for name, settings in entries.items()
        }
    words["tabs"] = tabs
    return words


def check_translations(
    check,
    raw: Any,
    *,
    tabs: Collection[str],
    inputs: Collection[str],
    presets: Collection[str],
    outputs: Collection[str],
) -> dict[str, dict]:
    """The sidecar's ``translations`` block, checked: ``{code: words}`` for each language.

    ``check`` is the sidecar's checker: a code that is not a language code, a language entry
    that is not a mapping, an unknown key, a value of the wrong type, and a tab, input, preset
    or output the template does not have are reported as errors (and left out); a language the
    portal does not speak is kept, with a warning that nobody sees it yet.
    """
    known = {"tabs": tabs, "inputs": inputs, "presets": presets, "outputs": outputs}
    result = {}
    for code, words in raw.items():
        code = str(code)
        if not LANGUAGE_CODE.match(code):
            check.report(
                ("translations", code),
                N_(
                    'Translations: "%(language)s" is not a language code; write the code in lower '
                    "case, such as %(known)s."
                ),
                language=code,
                known=", ".join(sorted(LANGUAGES)),
            )
            continue
        if code not in LANGUAGES:
            check.warn(
                ("translations", code),
                N_(
                    'Translations "%(language)s": the portal does not speak this language (it '
                    "speaks %(known)s), so nobody sees these words."
                ),
                language=code,
                known=", ".join(sorted(LANGUAGES)),
            )
        result[code] = _check_language(check, code, words, known)
    return result


def from_tosca_metadata(tosca_meta: dict, translations: dict[str, dict]) -> None:
    """Add ``display_name_it``-style TOSCA metadata under the languages the sidecar left out."""
    for key, value in tosca_meta.items():
        base, _sep, code = str(key).rpartition("_")
        if base not in TOSCA_KEYS or code not in LANGUAGES or not isinstance(value, str):
            continue
        words = translations.setdefault(code, {})
        field = TOSCA_KEYS[base]
        if field not in words and value.strip():
            words[field] = split_tags(value) if field == "tags" else value.strip()


# Tab names the portal gives itself (no tabs in the sidecar; inputs no tab lists).
PORTAL_TABS = {"Settings": _l("Settings"), "Advanced": _l("Advanced")}


def localise(parsed, language: str):
    """A copy of ``parsed`` (a ``ParsedTemplate``) in ``language``, field by field: each word
    the translation gives replaces the default-language one; the rest stay as they are."""
    words = parsed.translations.get(language, {})
    inputs = words.get("inputs", {})
    outputs = words.get("outputs", {})
    presets = words.get("presets", {})
    tab_names = words.get("tabs", {})
    with force_locale(language):
        tabs = [
            {
                **tab,
                "name": tab_names.get(tab["name"])
                or str(PORTAL_TABS.get(tab["name"], tab["name"])),
            }
            for tab in parsed.tabs
        ]
    return replace(
        parsed,
        name=words.get("name") or parsed.name,
        description=words.get("description") or parsed.description,
        tags=list(words.get("tags") or parsed.tags),
        tabs=tabs,
        inputs=[
            replace(spec, **{k: v for k, v in inputs.get(spec.name, {}).items() if v})
            for spec in parsed.inputs
        ],
        outputs=[
            replace(output, **{k: v for k, v in outputs.get(output.name, {}).items() if v})
            for output in parsed.outputs
        ],
        presets=[
            {**preset, **{k: v for k, v in presets.get(preset["name"], {}).items() if v}}
            for preset in parsed.presets
        ],
    )


def missing_words(parsed, language: str) -> list[str]:
    """What a reader in ``language`` would see in the default language: each a path such as
    ``name``, ``inputs.num_cpus.help``, ``presets.Small.description`` or ``tabs.Basic``."""
    words = parsed.translations.get(language, {})
    missing = [
        key for key in ("name", "description") if getattr(parsed, key) and not words.get(key)
    ]
    if parsed.tags and not words.get("tags"):
        missing.append("tags")
    missing += [
        f"tabs.{tab['name']}"
        for tab in parsed.tabs
        if tab["name"] not in PORTAL_TABS and not words.get("tabs", {}).get(tab["name"])
    ]
    for spec in parsed.inputs:
        if spec.hidden:
            continue
        given = words.get("inputs", {}).get(spec.name, {})
        shown = {"label": True, "help": spec.help or spec.description}
        shown |= {"placeholder": spec.placeholder, "pattern_message": spec.pattern_message}
        missing += [
            f"inputs.{spec.name}.{key}"
            for key, text in shown.items()
            if text and not given.get(key)
        ]
    for preset in parsed.presets:
        given = words.get("presets", {}).get(preset["name"], {})
        for key in ("name", "description"):
            if preset.get(key) and not given.get(key):
                missing.append(f"presets.{preset['name']}.{key}")
    for output in parsed.outputs:
        given = words.get("outputs", {}).get(output.name, {})
        for key in ("label", "description"):
            if getattr(output, key) and not given.get(key):
                missing.append(f"outputs.{output.name}.{key}")
    return missing
