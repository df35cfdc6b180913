"""How TOSCA values read to researchers: operating systems by name, ports as "22/tcp", whole
numbers without ".0". The launch form's choices and the deployment page's settings both ask
here, so a value reads the same before and after the launch.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

# Image identifiers the starter catalogue and the INDIGO templates use, by the name people know.
_OS_NAMES = {
    "ubuntu": "Ubuntu",
    "debian": "Debian",
    "rockylinux": "Rocky Linux",
    "rocky": "Rocky Linux",
    "almalinux": "AlmaLinux",
    "alma": "AlmaLinux",
    "centos": "CentOS",
    "fedora": "Fedora",
    "opensuse": "openSUSE",
    "rhel": "Red Hat Enterprise Linux",
}
# "ubuntu-22.04", "rockylinux-9", "ubuntu_24.04": a known family, then a version.
_OS_ID = re.compile(r"(?P<family>[a-z]+)[-_ ]?(?P<version>\d[\w.]*)?", re.IGNORECASE)
# Ubuntu's long-term releases say so in their name.
_LTS = re.compile(r"\d\d\.04")
# Inputs that choose an operating system: only their values are read as OS ids (a username
# "alma2" stays as typed).
_OS_INPUT = re.compile(r"(^|_)(os|image|distribution|distro)(_|$)", re.IGNORECASE)


def os_name(value: Any) -> str | None:
    """``"ubuntu-22.04"`` -> ``"Ubuntu 22.04 LTS"``; None when ``value`` is no known OS id."""
    if not isinstance(value, str):
        return None
    match = _OS_ID.fullmatch(value.strip())
    if not match or match["family"].lower() not in _OS_NAMES or not match["version"]:
        return None
    name, version = _OS_NAMES[match["family"].lower()], match["version"]
    lts = name == "Ubuntu" and _LTS.fullmatch(version) and int(version[:2]) % 2 == 0
    return f"{name} {version}{' LTS' if lts else ''}"


def port_text(spec: Any) -> str | None:
    """One INDIGO PortSpec as ``"22/tcp"`` (``"8000-8010/udp"`` for a range); None if it is
    not one."""
    if not isinstance(spec, dict):
        return None
    protocol = str(spec.get("protocol") or "tcp").lower()
    if spec.get("source_range") and len(spec["source_range"]) == 2:
        low, high = spec["source_range"]
        return f"{low}-{high}/{protocol}"
    if spec.get("source") is not None:
        return f"{spec['source']}/{protocol}"
    return None


def ports_text(value: Any) -> str | None:
    """A list or map of PortSpecs as ``"22/tcp, 8888/tcp"``; None unless every entry is one."""
    entries = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(entries, list) or not entries:
        return None
    texts = [port_text(entry) for entry in entries]
    if any(text is None for text in texts):
        return None
    return ", ".join(texts)


def number_text(value: int | float) -> str:
    """``2.0`` -> ``"2"``, ``2.5`` -> ``"2.5"``: whole numbers read as whole numbers."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def value_text(name: str, value: Any) -> str | None:
    """Input ``name``'s ``value`` in words (OS name, ports, number), or None when no rule
    knows it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return number_text(value)
    if isinstance(value, str):
        return os_name(value) if _OS_INPUT.search(name) else None
    return ports_text(value)


# Output names whose meaning the words alone do not give.
_OUTPUT_LABELS = {
    "node_creds": "Login credentials",
    "vm_creds": "Login credentials",
    "creds": "Login credentials",
    "credentials": "Login credentials",
    "private_key": "Private key",
    "ssh_private_key": "Private key",
    "ssh_key": "SSH key",
    "node_ip": "IP address",
    "kubeconfig": "Kubernetes configuration",
    "kube_config": "Kubernetes configuration",
}
# Words of output names as people write them.
_OUTPUT_WORDS = {
    "creds": "credentials",
    "cred": "credentials",
    "ip": "IP address",
    "ips": "IP addresses",
    "url": "address",
    "urls": "addresses",
    "endpoint": "address",
    "pwd": "password",
    "passwd": "password",
    "ssh": "SSH",
    "gpu": "GPU",
    "api": "API",
    "dns": "DNS",
    "id": "ID",
    "k8s": "Kubernetes",
    "vm": "VM",
}
# INDIGO credentials (tosca.datatypes.Credential) say what their token is in ``token_type``.
_TOKEN_LABELS = {
    "private_key": "Private key",
    "password": "Password",
    "public_key": "Public key",
    "x509": "Certificate",
}


def output_label(name: str) -> str:
    """A label for an output the template's sidecar does not label: ``"node_creds"`` ->
    ``"Login credentials"``, ``"jupyter_url"`` -> ``"Jupyter address"``."""
    known = _OUTPUT_LABELS.get(name.lower())
    if known:
        return known
    words = re.split(r"[_\-\s]+", name.strip())
    text = " ".join(_OUTPUT_WORDS.get(word.lower(), word.lower()) for word in words if word)
    return text[:1].upper() + text[1:] if text else name


def is_private_key(value: Any) -> bool:
    return isinstance(value, str) and "-----BEGIN" in value and "PRIVATE KEY-----" in value


def private_key_in(value: Any) -> str | None:
    """The private key an output holds (itself, the token of a credential, or the first of a
    list), or None. A mapping kept as JSON text is read as the mapping."""
    if isinstance(value, str) and value[:1] in "[{":
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    if is_private_key(value):
        return value
    if isinstance(value, dict):
        token = value.get("token")
        if value.get("token_type") == "private_key" or is_private_key(token):
            return token if isinstance(token, str) and token.strip() else None
        return next(filter(None, (private_key_in(item) for item in value.values())), None)
    if isinstance(value, list):
        return next(filter(None, (private_key_in(item) for item in value)), None)
    return None


def credential_parts(value: Any) -> list[tuple[str, Any]] | None:
    """An INDIGO credential (``user``, ``token_type``, ``token``...) as labelled parts, the
    token named after its type ("Private key", "Password"); None for any other value."""
    if not isinstance(value, dict) or "token" not in value or "token_type" not in value:
        return None
    parts: list[tuple[str, Any]] = []
    if value.get("user"):
        parts.append(("User name", value["user"]))
    kind = str(value.get("token_type") or "")
    parts.append((_TOKEN_LABELS.get(kind, "Token"), value["token"]))
    for key, item in value.items():
        if key not in ("user", "token", "token_type") and item not in (None, "", [], {}):
            parts.append((output_label(key), item))
    return parts
