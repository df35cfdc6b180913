"""Fields for structured values: lists, maps, INDIGO port specifications, and JSON as the
fallback for types the portal has no field for."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import re
from typing import Any

from wtforms import TextAreaField

from app.tosca.inputs.base import InputField
from app.tosca.inputs.scalars import SCALAR_FIELDS

PORT_TYPES = ("tosca.datatypes.network.PortSpec", "tosca.datatypes.indigo.network.PortSpec")
PROTOCOLS = ("tcp", "udp", "igmp")  # valid_values of tosca.datatypes.network.PortSpec


class _TextareaInput(InputField):
    widgets = ("textarea",)

    def field_class(self):
        return TextAreaField

    def _read_entry_schema(self, spec, position: str) -> None:
        """Set ``entry_type`` and ``entry`` (the field of one entry, or None: entered as JSON)."""
        schema = spec.entry_schema or {"type": "string"}
        self.entry_type = schema.get("type", "string") if isinstance(schema, dict) else schema
        self.entry = _entry_field(spec, schema, position)
        if self.entry is None:
            self.kind = "json"


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


def _json(value: Any, expected: type | None, what: str) -> Any:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
            ) from None
    if expected is not None and not isinstance(value, expected):
        raise ValueError(f"must be {what} in JSON")
    return value


class ListInput(_TextareaInput):
    """``list``: one entry per line for single-valued entries; JSON for lists of maps.

    Lists of other complex types are accepted as JSON and listed as unsupported.
    """

    kind = "list"
    constraint_type = "list"

    def __init__(self, spec):
        super().__init__(spec)
        self._read_entry_schema(spec, "entry")
        if self.entry is None and self.entry_type != "map":
            self.unsupported_reason = f"lists of {self.entry_type} are entered as JSON"

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault(
            "placeholder", "One entry per line" if self.entry else '[{"key": "value"}]'
        )
        return hints

    def coerce(self, value: Any, *, strict: bool = False) -> list:
        if self.entry is None:
            value = _json(value if not strict else value, list, "a list")
            if self.entry_type == "map" and not all(isinstance(e, dict) for e in value):
                raise ValueError("every entry must be a JSON object")
            return value
        if isinstance(value, str) and not strict:
            value = [line.strip() for line in value.splitlines() if line.strip()]
        if not isinstance(value, list):
            raise ValueError("must be a list")
        result, problems = [], []
        for position, item in enumerate(value, start=1):
            converted, messages = self.entry.check(item, strict=strict)
            if messages:
                problems.append(f'entry {position} ("{item}"): {" ".join(messages)}')
            result.append(converted)
        if problems:
            raise ValueError("; ".join(problems))
        return result

    def to_form(self, value: Any) -> Any:
        if self.entry is None:
            return json.dumps(value, indent=2)
        if isinstance(value, list):
            return "\n".join(str(self.entry.to_form(item)) for item in value)
        return value


class MapInput(_TextareaInput):
    """``map``: one "key = value" pair per line (a key/value editor may fill it).

    Maps of complex types are accepted as a JSON object and listed as unsupported.
    """

    kind = "map"
    constraint_type = "map"

    def __init__(self, spec):
        super().__init__(spec)
        self._read_entry_schema(spec, "value")
        if self.entry is None:
            self.unsupported_reason = f"maps of {self.entry_type} are entered as JSON"

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        hints.setdefault("placeholder", "key = value, one per line")
        return hints

    def _parse_lines(self, text: str) -> dict:
        pairs: dict[str, str] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise ValueError(f'line {number} must read "key = value"')
            if key.strip() in pairs:
                raise ValueError(f'key "{key.strip()}" is given twice')
            pairs[key.strip()] = value.strip()
        return pairs

    def coerce(self, value: Any, *, strict: bool = False) -> dict:
        if self.entry is None:
            return _json(value, dict, "an object")
        if isinstance(value, str) and not strict:
            value = self._parse_lines(value)
        if not isinstance(value, dict):
            raise ValueError("must be a mapping of keys to values")
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
        if self.entry is None:
            return json.dumps(value, indent=2)
        if isinstance(value, dict):
            return "\n".join(f"{k} = {self.entry.to_form(v)}" for k, v in value.items())
        return value


_PORT_LINE = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][\w.-]*)\s*:\s*)?(?P<low>\d+)(?:\s*-\s*(?P<high>\d+))?"
    r"(?:\s*/\s*(?P<protocol>[A-Za-z]+))?(?:\s+to\s+(?P<target>\d+))?"
    r"(?:\s+from\s+(?P<cidr>\S+))?\s*",
    re.IGNORECASE,
)
_PORT_KEYS = ("protocol", "source", "source_range", "target", "target_range", "remote_cidr")


def _port_number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ValueError(f"port {value!r} is not a whole number")
    if not 1 <= int(value) <= 65535:
        raise ValueError(f"port {value} is not between 1 and 65535")
    return int(value)


def check_port_spec(spec: Any) -> dict:
    """Validate one port specification mapping; return it normalised (raise ``ValueError``)."""
    if not isinstance(spec, dict):
        raise ValueError("a port must be a mapping such as {protocol: tcp, source: 8080}")
    unknown = set(spec) - set(_PORT_KEYS)
    if unknown:
        raise ValueError(f"unknown port fields: {', '.join(sorted(map(str, unknown)))}")
    result: dict[str, Any] = {"protocol": str(spec.get("protocol", "tcp")).lower()}
    if result["protocol"] not in PROTOCOLS:
        raise ValueError(f'protocol "{spec.get("protocol")}" is not one of: {", ".join(PROTOCOLS)}')
    for key in ("source", "target"):
        if spec.get(key) is not None:
            result[key] = _port_number(spec[key])
    for key in ("source_range", "target_range"):
        if spec.get(key) is not None:
            bounds = spec[key]
            if not isinstance(bounds, list) or len(bounds) != 2:
                raise ValueError(f"{key} must be two ports: [first, last]")
            low, high = _port_number(bounds[0]), _port_number(bounds[1])
            if low > high:
                raise ValueError(f"{key} {low}-{high} ends before it starts")
            result[key] = [low, high]
    if "source" not in result and "source_range" not in result:
        raise ValueError("a port needs a source port or source_range")
    if spec.get("remote_cidr") not in (None, ""):
        try:
            ipaddress.ip_network(str(spec["remote_cidr"]), strict=False)
        except ValueError:
            raise ValueError(f'"{spec["remote_cidr"]}" is not an address range (CIDR)') from None
        result["remote_cidr"] = str(spec["remote_cidr"])
    return result


class PortsInput(_TextareaInput):
    """INDIGO port specifications (``tosca.datatypes.indigo.network.PortSpec``), alone or in a
    list or map: one port per line, "[name:] port[-last][/protocol] [to port] [from CIDR]",
    e.g. "http: 8080/tcp from 0.0.0.0/0". Map entries need a name."""

    kind = "ports"
    constraint_type = "list"

    def __init__(self, spec):
        super().__init__(spec)
        self.mode = "single" if spec.type in PORT_TYPES else spec.type
        if self.mode == "map":
            self.constraint_type = "map"

    def render_kw(self) -> dict[str, Any]:
        hints = super().render_kw()
        example = "ssh: 22/tcp" if self.mode == "map" else "22/tcp"
        hints.setdefault("placeholder", f"{example}, one port per line")
        return hints

    def _parse_line(self, number: int, line: str) -> tuple[str | None, dict]:
        match = _PORT_LINE.fullmatch(line)
        if not match:
            raise ValueError(f'line {number} ("{line.strip()}") must read like "http: 8080/tcp"')
        spec: dict[str, Any] = {"protocol": (match["protocol"] or "tcp").lower()}
        if match["high"]:
            spec["source_range"] = [int(match["low"]), int(match["high"])]
        else:
            spec["source"] = int(match["low"])
        if match["target"]:
            spec["target"] = int(match["target"])
        if match["cidr"]:
            spec["remote_cidr"] = match["cidr"]
        return match["name"], spec

    def _from_text(self, text: str) -> Any:
        entries = [
            self._parse_line(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()
        ]
        if self.mode == "single":
            if len(entries) != 1:
                raise ValueError("must be exactly one port")
            return entries[0][1]
        if self.mode == "list":
            return [spec for _name, spec in entries]
        result = {}
        for position, (name, spec) in enumerate(entries, start=1):
            if not name:
                raise ValueError(f'port {position} needs a name, e.g. "http: 8080/tcp"')
            if name in result:
                raise ValueError(f'port name "{name}" is used twice')
            result[name] = spec
        return result

    def coerce(self, value: Any, *, strict: bool = False) -> Any:
        if isinstance(value, str) and not strict:
            value = self._from_text(value)
        if self.mode == "single":
            return check_port_spec(value)
        if self.mode == "list":
            if not isinstance(value, list):
                raise ValueError("must be a list of ports")
            return [check_port_spec(item) for item in value]
        if not isinstance(value, dict):
            raise ValueError("must be a mapping of port names to ports")
        return {str(name): check_port_spec(item) for name, item in value.items()}

    def to_form(self, value: Any) -> Any:
        def line(name: str | None, spec: dict) -> str:
            if spec.get("source_range"):
                text = "{}-{}".format(*spec["source_range"])
            else:
                text = str(spec.get("source", ""))
            text += "/" + str(spec.get("protocol", "tcp"))
            if spec.get("target"):
                text += f" to {spec['target']}"
            if spec.get("remote_cidr"):
                text += f" from {spec['remote_cidr']}"
            return f"{name}: {text}" if name else text

        try:
            if self.mode == "single" and isinstance(value, dict):
                return line(None, value)
            if self.mode == "list" and isinstance(value, list):
                return "\n".join(line(None, spec) for spec in value)
            if self.mode == "map" and isinstance(value, dict):
                return "\n".join(line(name, spec) for name, spec in value.items())
        except (AttributeError, TypeError, IndexError):
            pass  # a malformed stored value: show it as it is and let validation speak
        return value


class JsonInput(_TextareaInput):
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
        return _json(value, None, "")

    def to_form(self, value: Any) -> Any:
        return json.dumps(value, indent=2)
