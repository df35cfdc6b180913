"""The machines' addresses, for a deployment whose template gives none as an output.

A template written for IM often has no output at all, or only values that are not addresses
(``cpus_asked``); once it is ready its owner would then be told "ready" with nothing to reach it
by. IM knows each machine's network interfaces (its RADL: ``net_interface.N.ip``, and whether
the network an interface connects to goes ``outbound``, that is, is public), so the portal adds
one output per machine, ``<machine>_address``, with the public address when it has one, else
the first. Nothing else of the RADL is kept: it also carries the machines' credentials.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

# At most this many machines are asked for (one request each): a cluster's nodes are reached
# through its front end, whose address the template names when it has more than a few.
MACHINES_ASKED = 4
_INTERFACE_IP = re.compile(r"^net_interface\.(\d+)\.ip$")
_NAME = re.compile(r"[^A-Za-z0-9_]+")


def holds_an_address(outputs: dict[str, Any]) -> bool:
    """Whether some output already says where to reach the deployment (an IP address, a web
    address, or ``user@host``)."""
    for value in outputs.values():
        if not isinstance(value, str):
            continue
        text = value.strip()
        web = text.lower().startswith(("http://", "https://"))
        if web or _is_ip(text) or _is_ip(text.rpartition("@")[2]):
            return True
    return False


def machine_addresses(radls: list[list[dict]]) -> dict[str, str]:
    """``{"<machine>_address": ip}`` from each machine's RADL (IM's JSON form: a list of
    ``network`` and ``system`` items): its public address if one of its interfaces connects
    to an ``outbound`` network, else its first address."""
    found: dict[str, str] = {}
    for radl in radls:
        public = {
            item.get("id")
            for item in radl
            if item.get("class") == "network" and str(item.get("outbound", "")).lower() == "yes"
        }
        for item in radl:
            if item.get("class") != "system":
                continue
            address = _address_of(item, public)
            name = _NAME.sub("_", str(item.get("id") or "machine")).strip("_") or "machine"
            if address and f"{name}_address" not in found:
                found[f"{name}_address"] = address
    return found


def _address_of(system: dict, public_networks: set) -> str | None:
    interfaces = sorted(
        (int(match.group(1)), str(value))
        for key, value in system.items()
        if (match := _INTERFACE_IP.match(key)) and _is_ip(str(value))
    )
    for number, ip in interfaces:
        if system.get(f"net_interface.{number}.connection") in public_networks:
            return ip
    return interfaces[0][1] if interfaces else None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True
