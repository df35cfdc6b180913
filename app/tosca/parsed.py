"""The result of parsing one template revision, stored as JSON and loaded by every worker.

``parse_template`` runs once per revision (tosca-parser takes ~0.1 s); what it returns holds only
plain data, so ``ParsedTemplate.from_json`` is cheap and a worker can keep a whole catalogue in
memory. A broken template never raises: its ``errors`` say what is wrong and on which line.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from app.tosca import leniency
from app.tosca.input_checks import build_fields, check_presets
from app.tosca.judge import FIRST, Judge
from app.tosca.metadata import DEFAULT_TAB, SINGLE_TAB, read_metadata
from app.tosca.one_line import control_character_problems
from app.tosca.tosca import validate_template
from app.tosca.translations import current_language, localise
from app.tosca.typelibs import LibrarySet, from_folder
from app.tosca.wording import N_
from app.tosca.yamlsafe import Limits, Problem, TemplateError

__all__ = [
    "FORMAT",
    "InputSpec",
    "Limits",
    "OutputSpec",
    "ParsedTemplate",
    "Problem",
    "TemplateError",
    "parse_template",
]

log = logging.getLogger(__name__)

#: Bumped when the JSON shape changes; stored results of another format are parsed again.
FORMAT = 1


@dataclass
class InputSpec:
    """One template input: its TOSCA definition plus the sidecar's display settings."""

    name: str
    type: str = "string"
    description: str = ""
    required: bool = True
    default: Any = None
    has_default: bool = False
    constraints: list[dict] | None = None
    entry_schema: dict | None = None
    line: int | None = None
    kind: str = "string"
    label: str | None = None
    help: str | None = None
    widget: str | None = None
    choices: list | None = None
    placeholder: str | None = None
    pattern_message: str | None = None
    generate: bool = False
    hidden: bool = False
    # A default of the right type that breaks the input's own constraints, as the template
    # wrote it: the form offers none instead, and says why (``required`` is then true).
    refused_default: Any = None


@dataclass
class OutputSpec:
    """One template output and how the deployment page shows it."""

    name: str
    description: str = ""
    label: str | None = None
    show: str = "copy"
    line: int | None = None


@dataclass
class ParsedTemplate:
    """Everything the portal needs about one template revision, without tosca-parser."""

    slug: str
    name: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    icon: str | None = None
    types_version: str | None = None
    libraries: list[str] = field(default_factory=list)
    unresolved_imports: list[str] = field(default_factory=list)
    visible_to: list[str] = field(default_factory=list)
    # The sidecar's ``backend`` (checked by the catalogue, which knows the backends).
    backend: str | None = None
    inputs: list[InputSpec] = field(default_factory=list)
    outputs: list[OutputSpec] = field(default_factory=list)
    tabs: list[dict] = field(default_factory=list)
    presets: list[dict] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    # The template's words in other languages (see translations.py); ``localised`` uses them.
    translations: dict[str, dict] = field(default_factory=dict)
    format: int = FORMAT

    @property
    def ok(self) -> bool:
        """Whether the template can be launched (no errors)."""
        return not self.errors

    def localised(self, language: str | None = None) -> ParsedTemplate:
        """This template's words in ``language`` (by default the current request's), each
        falling back to the default-language one; outside a request, the template as stored.

        The copy is kept per language with the template, so a worker that keeps a template
        builds each language's words once.
        """
        source = self.__dict__.get("_source", self)
        language = language or current_language()
        if not language:
            return source
        copies = source.__dict__.setdefault("_copies", {})
        if language not in copies:
            copy = localise(source, language)
            copy.__dict__["_source"] = source
            copies[language] = copy
        return copies[language]

    def input(self, name: str) -> InputSpec | None:
        return next((spec for spec in self.inputs if spec.name == name), None)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """The JSON text stored with the revision."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict) -> ParsedTemplate:
        """Rebuild from ``to_dict`` output; raises ``ValueError`` for another ``format``."""
        if data.get("format") != FORMAT:
            raise ValueError(f"stored parse result has format {data.get('format')}, not {FORMAT}")
        data = dict(data)
        data["inputs"] = [InputSpec(**item) for item in data.get("inputs", [])]
        data["outputs"] = [OutputSpec(**item) for item in data.get("outputs", [])]
        for key in ("errors", "warnings"):
            data[key] = [Problem(**item) for item in data.get(key, [])]
        return cls(**data)

    @classmethod
    def from_json(cls, text: str | bytes) -> ParsedTemplate:
        """Rebuild from ``to_json`` output; raises ``ValueError`` for another ``format``."""
        return cls.from_dict(json.loads(text))


def _plain(value: Any) -> Any:
    """YAML data made JSON-safe: dates become ISO text, keys become strings."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def _read_inputs(tpl: dict, lines: dict, errors: list[Problem]) -> list[InputSpec]:
    topology = tpl.get("topology_template")
    raw = topology.get("inputs") if isinstance(topology, dict) else None
    if raw is None:
        return []
    if not isinstance(raw, dict):
        errors.append(
            Problem.of(N_("inputs must be a mapping."), lines.get(("topology_template",)))
        )
        return []
    specs = []
    for name, definition in raw.items():
        line = lines.get(("topology_template", "inputs", name))
        if not isinstance(definition, dict):
            errors.append(
                Problem.of(N_('Input "%(name)s" must be a mapping with a type.'), line, name=name)
            )
            continue
        required = definition.get("required", True)
        specs.append(
            InputSpec(
                name=str(name),
                type=str(definition.get("type") or "string"),
                description=str(definition.get("description") or "").strip(),
                required=required not in (False, "false", "no"),
                default=_plain(definition.get("default")),
                has_default="default" in definition and definition["default"] is not None,
                constraints=_plain(definition.get("constraints")),
                entry_schema=_plain(definition.get("entry_schema")),
                line=line,
            )
        )
    return specs


def _read_outputs(tpl: dict, lines: dict) -> list[OutputSpec]:
    topology = tpl.get("topology_template")
    raw = topology.get("outputs") if isinstance(topology, dict) else None
    if not isinstance(raw, dict):
        return []
    return [
        OutputSpec(
            name=str(name),
            description=str((d or {}).get("description") or "").strip()
            if isinstance(d, dict)
            else "",
            line=lines.get(("topology_template", "outputs", name)),
        )
        for name, d in raw.items()
    ]


def _layout(tabs: list[dict], inputs: list[InputSpec]) -> list[dict]:
    shown = [spec.name for spec in inputs if not spec.hidden]
    if not tabs:
        return [{"name": SINGLE_TAB, "inputs": shown}] if shown else []
    layout = [
        {"name": tab["name"], "inputs": [n for n in tab["inputs"] if n in shown]} for tab in tabs
    ]
    placed = {name for tab in layout for name in tab["inputs"]}
    rest = [name for name in shown if name not in placed]
    if rest:
        last = next((tab for tab in layout if tab["name"] == DEFAULT_TAB), None)
        if last is None:
            layout.append({"name": DEFAULT_TAB, "inputs": rest})
        else:
            last["inputs"].extend(rest)
    return layout


@lru_cache(maxsize=4)
def _shipped(folder: str, stamp: float) -> LibrarySet:
    return from_folder(folder)


def shipped_libraries(types_dir: str | Path) -> LibrarySet:
    """The shipped type copies of ``types_dir``, read again only when versions.yaml changes.

    Raises ``typelibs.LibraryError`` when the folder or its versions.yaml can't be used.
    """
    versions = Path(types_dir) / "versions.yaml"
    return _shipped(str(types_dir), versions.stat().st_mtime if versions.exists() else 0.0)


def parse_template(
    slug: str,
    text: str | bytes,
    sidecar_text: str | bytes | None = None,
    *,
    libraries: LibrarySet | None = None,
    types_dir: str | Path | None = None,
    limits: Limits | None = None,
    icons: Collection[str] | None = None,
    judge: Judge = FIRST,
) -> ParsedTemplate:
    """Parse and validate one template revision and its sidecar.

    Never raises for a bad template or sidecar: the result's ``errors`` hold what is wrong.
    Types are checked against ``libraries``, or else the shipped copies in ``types_dir``.
    ``icons`` names the files in ``icons/`` (``None`` skips that check); ``judge`` is the
    backend the template runs on (``judge.Judge``). Raises
    ``typelibs.LibraryError`` only when ``types_dir`` itself is unusable.
    """
    limits = limits or Limits()
    if libraries is None:
        libraries = shipped_libraries(types_dir) if types_dir else LibrarySet()
    result = ParsedTemplate(slug=slug, name=slug)
    repeated: list[Problem] = []
    try:
        tpl, lines = limits.load(text, duplicates=repeated)
    except TemplateError as error:
        result.errors.append(Problem.from_error(error))
        return result
    result.warnings.extend(leniency.duplicate_key(problem) for problem in repeated)
    if isinstance(text, bytes):
        text = text.decode("utf-8")

    result.inputs = _read_inputs(tpl, lines, result.errors)
    result.outputs = _read_outputs(tpl, lines)
    meta, meta_errors, meta_warnings = read_metadata(
        slug,
        tpl,
        sidecar_text,
        limits=limits,
        icons=icons,
        input_names={s.name for s in result.inputs},
        output_names={o.name for o in result.outputs},
    )
    result.errors.extend(meta_errors)
    result.warnings.extend(meta_warnings)
    result.name, result.description, result.icon = meta.name, meta.description, meta.icon
    result.tags, result.visible_to, result.presets = meta.tags, meta.visible_to, meta.presets
    result.translations, result.backend = meta.translations, meta.backend
    for spec in result.inputs:
        for key, value in meta.inputs.get(spec.name, {}).items():
            setattr(spec, key, _plain(value))
    for output in result.outputs:
        for key, value in meta.outputs.get(output.name, {}).items():
            setattr(output, key, value)
    result.tabs = _layout(meta.tabs, result.inputs)

    fields = build_fields(result)
    check_presets(result, fields)

    validation = validate_template(
        tpl, lines, libraries=libraries, pinned=meta.types_version, text=text, judge=judge
    )
    result.types_version = validation.version
    result.libraries, result.unresolved_imports = validation.libraries, validation.unresolved
    result.errors.extend(validation.errors)
    result.warnings.extend(validation.warnings)
    result.errors.extend(control_character_problems(result))
    return result
