"""Fields for structured values: lists, maps (a YAML editor when they have no entry schema),
and JSON as the fallback for types the portal has no field for."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import yaml
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import TextAreaField

from app.tosca.inputs.base import InputField
from app.tosca.inputs.scalars import SCALAR_FIELDS
from app.tosca.numbers import TooManyDigits, load_json, load_yaml


class TextareaInput(InputField):
    widgets = ("textarea",)

    def field_class(self):
        return TextAreaField

    #: No ``entry_schema``: entries may be any YAML value (tosca-parser and the orchestrator
    #: check nothing more), typed in a YAML editor.
    free_form = False

    def _read_entry_schema(self, spec, position: str) -> None:
        """Set ``entry_type`` and ``entry`` (the field of one entry, or None: entered as JSON,
        or as YAML when the input has no entry schema at all)."""
        if spec.entry_schema is None:
            self.free_form, self.entry_type, self.entry = True, None, None
            self.kind = "yaml"
            return
        schema = spec.entry_schema
        self.entry_type = schema.get("type", "string") if isinstance(schema, dict) else schema
        self.entry = _entry_field(spec, schema, position)
        if self.entry is None:
            self.kind = "json"

    def _from_yaml(self, value: Any, expected: type) -> Any:
        if isinstance(value, str):
            try:
                value = load_yaml(value) if value.strip() else expected()
            except TooManyDigits:
                raise
            except yaml.YAMLError as error:
                raise ValueError(_yaml_problem(error)) from None
        if not isinstance(value, expected):
            raise ValueError(
                _("must be a list in YAML") if expected is list else _("must be a mapping in YAML")
            )
        return value

    def _to_yaml(self, value: Any) -> str:
        if value in (None, [], {}):
            return ""
        return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100).rstrip()


def _yaml_problem(error: yaml.YAMLError) -> str:
    # YAML's own description of the problem ("found unexpected end of stream") is quoted as
    # the parser gives it: it names YAML's parts, which have no other name.
    mark, problem = getattr(error, "problem_mark", None), getattr(error, "problem", None)
    if mark and problem:
        return _(
            "is not valid YAML (line %(line)d, column %(column)d): %(problem)s",
            line=mark.line + 1,
            column=mark.column + 1,
            problem=problem,
        )
    if mark:
        return _(
            "is not valid YAML (line %(line)d, column %(column)d): it cannot be read",
            line=mark.line + 1,
            column=mark.column + 1,
        )
    return (
        _("is not valid YAML: %(problem)s", problem=problem)
        if problem
        else _("is not valid YAML: it cannot be read")
    )


def _entry_field(spec, entry_schema: Any, position: str) -> InputField | None:
    """A field for the entries of a list or map, when their type is a single-valued one."""
    schema = entry_schema if isinstance(entry_schema, dict) else {"type": entry_schema or "string"}
    entry_type = schema.get("type", "string")
    if entry_type not in SCALAR_FIELDS:
        return None
    entry_spec = dataclasses.replace(
        spec,
        name=f"{spec.name} {position}",
        type=entry_type,
        constraints=schema.get("constraints"),
        entry_schema=None,
        default=None,
        has_default=False,
        widget=None,
        choices=None,
        required=True,
    )
    return SCALAR_FIELDS[entry_type](entry_spec)


def _quoted(item: Any, most: int = 40) -> str:
    """An entry as a message quotes it: a hostile one is cut, not echoed whole."""
    text = str(item) if not isinstance(item, int) or item.bit_length() < 4000 else "…"
    return text if len(text) <= most else text[: most - 1] + "…"


def _json(value: Any, expected: type | None) -> Any:
    if isinstance(value, str):
        try:
            value = load_json(value)
        except json.JSONDecodeError as error:
            raise ValueError(
                _(
                    "is not valid JSON (line %(line)d, column %(column)d: %(problem)s)",
                    line=error.lineno,
                    column=error.colno,
                    problem=error.msg,
                )
            ) from None
    if expected is not None and not isinstance(value, expected):
        raise ValueError(
            _("must be a list in JSON") if expected is list else _("must be an object in JSON")
        )
    return value


class ListInput(TextareaInput):
    """``list``: one entry per line for single-valued entries; JSON for lists of maps.

    Lists of other complex types are accepted as JSON and listed as unsupported.
    """

    kind = "list"
    constraint_type = "list"

    def __init__(self, spec):
        super().__init__(spec)
        self._read_entry_schema(spec, "entry")
        if self.entry is None and not self.free_form and self.entry_type != "map":
            self.unsupported_reason = f"lists of {self.entry_type} are entered as JSON"

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        if self.free_form:
            hints.setdefault("placeholder", _l("A YAML list, one entry per line:\n- name: keras"))
        hints.setdefault(
            "placeholder", _l("One entry per line") if self.entry else '[{"key": "value"}]'
        )
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> list:
        if self.free_form:
            return self._from_yaml(value, list)
        if self.entry is None:
            value = _json(value, list)
            if self.entry_type == "map" and not all(isinstance(e, dict) for e in value):
                raise ValueError(_("every entry must be a JSON object"))
            return value
        if isinstance(value, str) and not strict:
            value = [line.strip() for line in value.splitlines() if line.strip()]
        if not isinstance(value, list):
            raise ValueError(_("must be a list"))
        result, problems = [], []
        for position, item in enumerate(value, start=1):
            converted, messages = self.entry.check(item, strict=strict)
            if messages:
                problems.append(
                    _(
                        'entry %(position)d ("%(value)s"): %(problems)s',
                        position=position,
                        value=_quoted(item),
                        problems=" ".join(messages),
                    )
                )
            result.append(converted)
        if problems:
            raise ValueError("; ".join(problems))
        return result

    def to_form(self, value: Any) -> Any:
        if self.free_form:
            return self._to_yaml(value)
        if self.entry is None:
            return json.dumps(value, indent=2)
        if isinstance(value, list):
            return "\n".join(str(self.entry.to_form(item)) for item in value)
        return value


class MapInput(TextareaInput):
    """``map``: one "key = value" pair per line (a key/value editor may fill it).

    Maps of complex types are accepted as a JSON object and listed as unsupported.
    """

    kind = "map"
    constraint_type = "map"

    def __init__(self, spec):
        super().__init__(spec)
        self._read_entry_schema(spec, "value")
        if self.entry is None and not self.free_form:
            self.unsupported_reason = f"maps of {self.entry_type} are entered as JSON"

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        if self.free_form:
            hints.setdefault("placeholder", _l("A YAML mapping, one key per line:\nkey: value"))
        hints.setdefault("placeholder", _l("key = value, one per line"))
        return hints

    def _parse_lines(self, text: str) -> dict:
        pairs: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise ValueError(_('line %(line)d must read "key = value"', line=number))
            if key.strip() in pairs:
                raise ValueError(_('key "%(key)s" is given twice', key=key.strip()))
            pairs[key.strip()] = value.strip()
        return pairs

    def coerce(self, value: Any, *, strict: bool = False) -> dict:
        if self.free_form:
            return self._from_yaml(value, dict)
        if self.entry is None:
            return _json(value, dict)
        if isinstance(value, str) and not strict:
            value = self._parse_lines(value)
        if not isinstance(value, dict):
            raise ValueError(_("must be a mapping of keys to values"))
        result, problems = {}, []
        for key, item in value.items():
            converted, messages = self.entry.check(item, strict=strict)
            if messages:
                problems.append(f'"{key}": {" ".join(messages)}')
            result[str(key)] = converted
        if problems:
            raise ValueError("; ".join(problems))
        return result

    def to_form(self, value: Any) -> Any:
        if self.free_form:
            return self._to_yaml(value)
        if self.entry is None:
            return json.dumps(value, indent=2)
        if isinstance(value, dict):
            return "\n".join(f"{k} = {self.entry.to_form(v)}" for k, v in value.items())
        return value


class JsonInput(TextareaInput):
    """Fallback for data types the portal has no field for: the value is typed as JSON.

    Such inputs are listed in ``ParsedTemplate.unsupported`` so curators know; the value is
    checked to be valid JSON (an object for data types) and passed on for the orchestrator to
    judge, since tosca-parser does not check input values either.
    """

    kind = "json"

    def __init__(self, spec):
        super().__init__(spec)
        self.unsupported_reason = (
            f"type {spec.type} has no form field; its value is entered as JSON"
        )

    def coerce(self, value: Any, *, strict: bool = False) -> Any:
        if strict:
            return value
        return _json(value, None)

    def to_form(self, value: Any) -> Any:
        return json.dumps(value, indent=2)
