"""The portal's sidecar metadata (``<slug>.portal.yaml``) and its fallbacks from the template.

The format is described in ``tosca-catalog/README.md``. ``read_metadata`` checks the sidecar's
shape (unknown keys, unknown widgets, tabs or presets naming unknown inputs, unknown output
``show`` kinds...) and fills what the sidecar leaves out from the TOSCA ``metadata`` and
``description``; its ``translations`` block is checked by translations.py. Every problem is
reported with the sidecar line it is on; none raises.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from app.tosca.translations import check_translations, from_tosca_metadata, split_tags
from app.tosca.wording import N_, said
from app.tosca.yamlsafe import Limits, Problem, TemplateError

WIDGETS = (
    "text",
    "textarea",
    "select",
    "radio",
    "number",
    "slider",
    "password",
    "checkbox",
    "schedule",
)
SHOW_KINDS = ("link", "copy", "secret", "ssh", "download")
DEFAULT_TAB = "Advanced"
SINGLE_TAB = "Settings"

_TOP_KEYS = {
    "name": str,
    "icon": str,
    "description": str,
    "tags": (list, str),
    "types_version": str,
    "visible_to": list,
    "backend": str,
    "tabs": list,
    "inputs": dict,
    "presets": list,
    "outputs": dict,
    "translations": dict,
}
_INPUT_KEYS = {
    "label": str,
    "help": str,
    "widget": str,
    "choices": list,
    "placeholder": str,
    "pattern_message": str,
    "generate": bool,
    "hidden": bool,
}
_OUTPUT_KEYS = {"label": str, "show": str}
# One whole sentence per type, so that each language words it its own way.
_MUST_BE = {
    str: N_('%(what)s: "%(key)s" must be text.'),
    list: N_('%(what)s: "%(key)s" must be a list.'),
    dict: N_('%(what)s: "%(key)s" must be a mapping.'),
    bool: N_('%(what)s: "%(key)s" must be true or false.'),
}


@dataclass
class Metadata:
    """What the catalogue shows about a template, after the fallbacks are applied."""

    name: str
    description: str = ""
    icon: str | None = None
    tags: list[str] = field(default_factory=list)
    types_version: str | None = None
    visible_to: list[str] = field(default_factory=list)
    # Which backend deploys it (a name the catalogue checks); None: the site's default.
    backend: str | None = None
    tabs: list[dict] = field(default_factory=list)
    inputs: dict[str, dict] = field(default_factory=dict)
    presets: list[dict] = field(default_factory=list)
    outputs: dict[str, dict] = field(default_factory=dict)
    # {language code: words} (see translations.py), laid over the fields above when read.
    translations: dict[str, dict] = field(default_factory=dict)


def humanise(name: str) -> str:
    """``"num_cpus"`` -> ``"Num cpus"``; ``"jupyter-vm"`` -> ``"Jupyter vm"``."""
    words = name.replace("_", " ").replace("-", " ").split()
    text = " ".join(words)
    return text[:1].upper() + text[1:]


class _Checker:
    """Collects sidecar problems with the line of the key they concern.

    Problems are kept as message ids with their values (``Problem.of``) and translated when an
    admin reads them; ``what`` names the part of the sidecar a problem is in, itself a message
    (``said``) so that the whole sentence is in the reader's language.
    """

    def __init__(self, lines: dict[tuple, int]):
        self.lines = lines
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def _line(self, path: tuple) -> int | None:
        for end in range(len(path), 0, -1):
            if self.lines.get(path[:end]):
                return self.lines[path[:end]]
        return None

    def report(self, path: tuple, msgid: str, **params: Any) -> None:
        self.problems.append(Problem.of(msgid, self._line(path), "sidecar", **params))

    def warn(self, path: tuple, msgid: str, **params: Any) -> None:
        self.warnings.append(Problem.of(msgid, self._line(path), "sidecar", **params))

    def check_keys(self, data: Any, path: tuple, allowed: dict, what: dict) -> dict:
        """Report unknown keys and values of the wrong type; return only the good entries."""
        if not isinstance(data, dict):
            self.report(path, N_("%(what)s must be a mapping of keys to values."), what=what)
            return {}
        good = {}
        for key, value in data.items():
            if key not in allowed:
                self.report(
                    (*path, key),
                    N_('%(what)s: unknown key "%(key)s" (known: %(known)s).'),
                    what=what,
                    key=str(key),
                    known=", ".join(allowed),
                )
            elif value is not None and not isinstance(value, allowed[key]):
                expected = allowed[key] if isinstance(allowed[key], type) else allowed[key][0]
                self.report((*path, key), _MUST_BE[expected], what=what, key=str(key))
            elif value is not None:
                good[key] = value
        return good

    def check_names(self, names: Any, path: tuple, known: Collection[str], what: dict) -> list:
        if not isinstance(names, list):
            self.report(path, N_("%(what)s must be a list of input names."), what=what)
            return []
        good = []
        for position, name in enumerate(names):
            if name in known:
                good.append(name)
            else:
                self.report(
                    (*path, position),
                    N_('%(what)s names "%(name)s", which is not an input.'),
                    what=what,
                    name=str(name),
                )
        return good


def _check_inputs(check: _Checker, data: dict, inputs: Collection[str]) -> dict[str, dict]:
    result = {}
    for name, settings in data.items():
        path = ("inputs", name)
        if name not in inputs:
            check.report(
                path, N_('Input settings for "%(name)s", which is not an input.'), name=str(name)
            )
            continue
        what = said(N_('Input "%(name)s"'), name=str(name))
        good = check.check_keys(settings or {}, path, _INPUT_KEYS, what)
        widget = good.get("widget")
        if widget is not None and widget not in WIDGETS:
            check.report(
                (*path, "widget"),
                N_('Input "%(name)s": unknown widget "%(widget)s" (known: %(known)s).'),
                name=str(name),
                widget=str(widget),
                known=", ".join(WIDGETS),
            )
            good.pop("widget")
        result[name] = good
    return result


def _check_tabs(check: _Checker, tabs: list, inputs: Collection[str]) -> list[dict]:
    result, placed = [], set()
    for position, tab in enumerate(tabs):
        path = ("tabs", position)
        what = said(N_("Tab %(number)d"), number=position + 1)
        good = check.check_keys(tab, path, {"name": str, "inputs": list}, what)
        if "name" not in good:
            check.report(path, N_("Tab %(number)d has no name."), number=position + 1)
            continue
        what = said(N_('Tab "%(name)s"'), name=good["name"])
        names = check.check_names(good.get("inputs", []), (*path, "inputs"), inputs, what)
        for name in names:
            if name in placed:
                check.report(
                    (*path, "inputs"),
                    N_('Input "%(name)s" is listed in more than one tab.'),
                    name=str(name),
                )
        names = [name for name in names if name not in placed]
        placed.update(names)
        result.append({"name": good["name"], "inputs": names})
    return result


def _check_presets(check: _Checker, presets: list, inputs: Collection[str]) -> list[dict]:
    result = []
    allowed = {"name": str, "description": str, "values": dict}
    for position, preset in enumerate(presets):
        path = ("presets", position)
        what = said(N_("Preset %(number)d"), number=position + 1)
        good = check.check_keys(preset, path, allowed, what)
        if "name" not in good:
            check.report(path, N_("Preset %(number)d has no name."), number=position + 1)
            continue
        values = {}
        for name, value in good.get("values", {}).items():
            if name in inputs:
                values[name] = value
            else:
                check.report(
                    (*path, "values", name),
                    N_('Preset "%(preset)s" sets "%(name)s", which is not an input.'),
                    preset=good["name"],
                    name=str(name),
                )
        result.append(
            {"name": good["name"], "description": good.get("description", ""), "values": values}
        )
    return result


def _check_outputs(check: _Checker, data: dict, outputs: Collection[str]) -> dict[str, dict]:
    result = {}
    for name, settings in data.items():
        path = ("outputs", name)
        if name not in outputs:
            check.report(
                path, N_('Output settings for "%(name)s", which is not an output.'), name=str(name)
            )
            continue
        what = said(N_('Output "%(name)s"'), name=str(name))
        good = check.check_keys(settings or {}, path, _OUTPUT_KEYS, what)
        if "show" in good and good["show"] not in SHOW_KINDS:
            check.report(
                (*path, "show"),
                N_('Output "%(name)s": unknown show kind "%(show)s" (known: %(known)s).'),
                name=str(name),
                show=good["show"],
                known=", ".join(SHOW_KINDS),
            )
            good.pop("show")
        result[name] = good
    return result


def read_metadata(
    slug: str,
    tosca: dict,
    sidecar_text: str | bytes | None,
    *,
    input_names: Collection[str],
    output_names: Collection[str],
    limits: Limits | None = None,
    icons: Collection[str] | None = None,
) -> tuple[Metadata, list[Problem], list[Problem]]:
    """Read the sidecar and apply the documented fallbacks; return (metadata, errors, warnings).

    ``tosca`` is the loaded template. ``icons`` names the files available in ``icons/``; when
    given, icons that aren't among them are reported (sidecar) or ignored (TOSCA metadata).
    Never raises: a sidecar that can't be read is reported and the fallbacks are used.
    """
    limits = limits or Limits()
    errors: list[Problem] = []
    warnings: list[Problem] = []
    data: dict = {}
    check = _Checker({})
    if sidecar_text is not None and str(sidecar_text).strip():
        try:
            raw, lines = limits.load(sidecar_text, strict_keys=True)
        except TemplateError as error:
            errors.append(Problem.from_error(error, "sidecar"))
        else:
            check = _Checker(lines)
            data = check.check_keys(raw, (), _TOP_KEYS, said(N_("The sidecar")))

    tosca_meta = tosca.get("metadata") if isinstance(tosca.get("metadata"), dict) else {}
    name = (
        data.get("name")
        or tosca_meta.get("display_name")
        or tosca_meta.get("template_name")
        or humanise(slug)
    )
    description = data.get("description")
    if description is None:
        description = tosca.get("description") if isinstance(tosca.get("description"), str) else ""

    icon = data.get("icon")
    if icon is not None and icons is not None and icon not in icons:
        check.report(("icon",), N_('Icon "%(icon)s" is not a file in icons/.'), icon=icon)
        icon = None
    if icon is None:
        fallback = tosca_meta.get("icon")
        if isinstance(fallback, str) and (icons is None or fallback in icons):
            icon = fallback

    visible_to = data.get("visible_to", [])
    if not all(isinstance(group, str) for group in visible_to):
        check.report(("visible_to",), N_("visible_to must be a list of group names."))
        visible_to = [group for group in visible_to if isinstance(group, str)]

    metadata = Metadata(
        name=str(name),
        description=str(description).strip(),
        icon=icon,
        tags=split_tags(data.get("tags", tosca_meta.get("tags"))),
        types_version=data.get("types_version"),
        visible_to=visible_to,
        backend=data.get("backend", "").strip() or None,
        tabs=_check_tabs(check, data.get("tabs", []), input_names),
        inputs=_check_inputs(check, data.get("inputs", {}), input_names),
        presets=_check_presets(check, data.get("presets", []), input_names),
        outputs=_check_outputs(check, data.get("outputs", {}), output_names),
    )
    metadata.translations = check_translations(
        check,
        data.get("translations", {}),
        # The portal's own tab names may be translated too: it adds them when the sidecar
        # lists no tabs, or leaves inputs out of them.
        tabs={tab["name"] for tab in metadata.tabs} | {DEFAULT_TAB, SINGLE_TAB},
        inputs=input_names,
        presets={preset["name"] for preset in metadata.presets},
        outputs=output_names,
    )
    from_tosca_metadata(tosca_meta, metadata.translations)
    errors.extend(check.problems)
    warnings.extend(check.warnings)
    return metadata, errors, warnings
