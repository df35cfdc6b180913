"""INDIGO port specifications (``tosca.datatypes.indigo.network.PortSpec``), alone or in a
list or map, typed one port per line."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.tosca.inputs.structured import TextareaInput
from app.tosca.numbers import check_int, whole

PORT_TYPES = ("tosca.datatypes.network.PortSpec", "tosca.datatypes.indigo.network.PortSpec")
PROTOCOLS = ("tcp", "udp", "igmp")  # valid_values of tosca.datatypes.network.PortSpec

_PORT_LINE = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][\w.-]*)\s*:\s*)?(?P<low>\d+)(?:\s*-\s*(?P<high>\d+))?"
    r"(?:\s*/\s*(?P<protocol>[A-Za-z]+))?(?:\s+to\s+(?P<target>\d+))?"
    r"(?:\s+from\s+(?P<cidr>\S+))?\s*",
    re.IGNORECASE,
)
_PORT_KEYS = ("protocol", "source", "source_range", "target", "target_range", "remote_cidr")


def _port_number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(_("a port must be a whole number"))
    number = check_int(value) if isinstance(value, int) else None
    if number is None:
        if not value.isdigit():
            raise ValueError(_("port %(port)s is not a whole number", port=repr(value)))
        number = whole(value)
    if not 1 <= number <= 65535:
        raise ValueError(_("port %(port)d is not between 1 and 65535", port=number))
    return number


def check_port_spec(spec: Any) -> dict:
    """Validate one port specification mapping; return it normalised (raise ``ValueError``)."""
    if not isinstance(spec, dict):
        raise ValueError(_("a port must be a mapping such as {protocol: tcp, source: 8080}"))
    unknown = set(spec) - set(_PORT_KEYS)
    if unknown:
        raise ValueError(
            _("unknown port fields: %(fields)s", fields=", ".join(sorted(map(str, unknown))))
        )
    result: dict[str, Any] = {"protocol": str(spec.get("protocol", "tcp")).lower()}
    if result["protocol"] not in PROTOCOLS:
        raise ValueError(
            _(
                'protocol "%(protocol)s" is not one of: %(protocols)s',
                protocol=spec.get("protocol"),
                protocols=", ".join(PROTOCOLS),
            )
        )
    for key in ("source", "target"):
        if spec.get(key) is not None:
            result[key] = _port_number(spec[key])
    for key in ("source_range", "target_range"):
        if spec.get(key) is not None:
            bounds = spec[key]
            if not isinstance(bounds, list) or len(bounds) != 2:
                raise ValueError(_("%(key)s must be two ports: [first, last]", key=key))
            low, high = _port_number(bounds[0]), _port_number(bounds[1])
            if low > high:
                raise ValueError(
                    _("%(key)s %(low)d-%(high)d ends before it starts", key=key, low=low, high=high)
                )
            result[key] = [low, high]
    if "source" not in result and "source_range" not in result:
        raise ValueError(_("a port needs a source port or source_range"))
    if spec.get("remote_cidr") not in (None, ""):
        try:
            ipaddress.ip_network(str(spec["remote_cidr"]), strict=False)
        except ValueError:
            raise ValueError(
                _('"%(cidr)s" is not an address range (CIDR)', cidr=spec["remote_cidr"])
            ) from None
        result["remote_cidr"] = str(spec["remote_cidr"])
    return result


class PortsInput(TextareaInput):
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
        hints.setdefault("placeholder", _l("%(example)s, one port per line", example=example))
        return hints

    def _parse_line(self, number: int, line: str) -> tuple[str | None, dict]:
        match = _PORT_LINE.fullmatch(line)
        if not match:
            raise ValueError(
                _(
                    'line %(line)d ("%(text)s") must read like "http: 8080/tcp"',
                    line=number,
                    text=line.strip(),
                )
            )
        spec: dict[str, Any] = {"protocol": (match["protocol"] or "tcp").lower()}
        if match["high"]:
            spec["source_range"] = [whole(match["low"]), whole(match["high"])]
        else:
            spec["source"] = whole(match["low"])
        if match["target"]:
            spec["target"] = whole(match["target"])
        if match["cidr"]:
            spec["remote_cidr"] = match["cidr"]
        return match["name"], spec

    def _from_text(self, text: str) -> Any:
        entries = [
            self._parse_line(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()
        ]
        if self.mode == "single":
            if len(entries) != 1:
                raise ValueError(_("must be exactly one port"))
            return entries[0][1]
        if self.mode == "list":
            return [spec for _name, spec in entries]
        result = {}
        for position, (name, spec) in enumerate(entries, start=1):
            if not name:
                raise ValueError(
                    _(
                        'port %(position)d needs a name, e.g. "http: 8080/tcp"',
                        position=position,
                    )
                )
            if name in result:
                raise ValueError(_('port name "%(name)s" is used twice', name=name))
            result[name] = spec
        return result

    def coerce(self, value: Any, *, strict: bool = False) -> Any:
        if isinstance(value, str) and not strict:
            value = self._from_text(value)
        if self.mode == "single":
            return check_port_spec(value)
        if self.mode == "list":
            if not isinstance(value, list):
                raise ValueError(_("must be a list of ports"))
            return [check_port_spec(item) for item in value]
        if not isinstance(value, dict):
            raise ValueError(_("must be a mapping of port names to ports"))
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
