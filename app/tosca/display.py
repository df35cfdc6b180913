"""How TOSCA values read to researchers: operating systems by name, ports as "22/tcp", whole
numbers without ".0". The launch form's choices and the deployment page's settings both ask
here, so a value reads the same before and after the launch.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from typing import Any

from babel.numbers import format_decimal
from flask import has_app_context
from flask_babel import get_locale, gettext

from app.tosca.wording import N_

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
    """``2.0`` -> ``"2"``, ``2.5`` -> ``"2.5"`` (``"2,5"`` for an Italian reader): whole numbers
    read as whole numbers, with the reader's decimal sign. No thousands separator: these are
    values people chose or typed (4096 MB, port 8080), read as they wrote them."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    locale = get_locale() if has_app_context() else None
    return format_decimal(
        value, locale=locale or "en", group_separator=False, decimal_quantization=False
    )


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
    "node_creds": N_("Login credentials"),
    "vm_creds": N_("Login credentials"),
    "creds": N_("Login credentials"),
    "credentials": N_("Login credentials"),
    "private_key": N_("Private key"),
    "ssh_private_key": N_("Private key"),
    "ssh_key": N_("SSH key"),
    "node_ip": N_("IP address"),
    "kubeconfig": N_("Kubernetes configuration"),
    "kube_config": N_("Kubernetes configuration"),
}
# The last word of an output name says what it holds: the label is one whole message, with the
# words before it (the template's own, such as "jupyter") in place of ``what``; alone, the word
# has its own message.
_OUTPUT_ENDINGS = {
    "creds": (N_("%(what)s credentials"), N_("Credentials")),
    "cred": (N_("%(what)s credentials"), N_("Credentials")),
    "credentials": (N_("%(what)s credentials"), N_("Credentials")),
    "ip": (N_("%(what)s IP address"), N_("IP address")),
    "ips": (N_("%(what)s IP addresses"), N_("IP addresses")),
    "url": (N_("%(what)s address"), N_("Address")),
    "endpoint": (N_("%(what)s address"), N_("Address")),
    "urls": (N_("%(what)s addresses"), N_("Addresses")),
    "password": (N_("%(what)s password"), N_("Password")),
    "pwd": (N_("%(what)s password"), N_("Password")),
    "passwd": (N_("%(what)s password"), N_("Password")),
}
# Names and abbreviations inside output names, written as people know them (in any language).
_OUTPUT_WORDS = {
    "ip": "IP",
    "ips": "IPs",
    "url": "URL",
    "urls": "URLs",
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
    "private_key": N_("Private key"),
    "password": N_("Password"),
    "public_key": N_("Public key"),
    "x509": N_("Certificate"),
}
_TOKEN = N_("Token")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def output_label(name: str) -> str:
    """A label for an output the template's sidecar does not label, in the reader's language:
    ``"node_creds"`` -> ``"Login credentials"``, ``"jupyter_url"`` -> ``"Jupyter address"``."""
    known = _OUTPUT_LABELS.get(name.lower())
    if known:
        return gettext(known)
    words = [word.lower() for word in re.split(r"[_\-\s]+", name.strip()) if word]
    if not words:
        return name
    ending = _OUTPUT_ENDINGS.get(words[-1])
    if ending:
        words.pop()
    what = _capital(" ".join(_OUTPUT_WORDS.get(word, word) for word in words))
    if ending is None:
        return what
    return _capital(gettext(ending[0], what=what)) if what else gettext(ending[1])


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
        parts.append((gettext("User name"), value["user"]))
    kind = str(value.get("token_type") or "")
    label = _TOKEN_LABELS.get(kind, _TOKEN)
    parts.append((gettext(label), value["token"]))
    for key, item in value.items():
        if key not in ("user", "token", "token_type") and item not in (None, "", [], {}):
            parts.append((output_label(key), item))
    return parts
