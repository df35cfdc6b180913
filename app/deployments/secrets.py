"""Secrets kept with a deployment: the ones the portal generated for its inputs, and secret
outputs (credentials the deployment hands back). Both are sealed with the same Fernet key as
the stored identity-provider tokens, so that a copy of the database reveals none of them.

Which inputs are secret is the catalogue's rule (``SECRET_KINDS``); a secret the user typed is
never kept, one the portal generated is, until its owner forgets it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from cryptography.fernet import InvalidToken

from app.auth.tokens import _fernet
from app.tosca.inputs import PASSWORD_NAME, SECRET_KINDS
from app.tosca.parsed import ParsedTemplate

log = logging.getLogger(__name__)

# Output names that hold credentials whatever the template's metadata says.
_CREDENTIAL_NAME = ("creds", "credential", "kubeconfig", "kube_config", "private_key")
# Keys of an object-valued output that make it a credential.
_CREDENTIAL_KEYS = frozenset({"password", "token", "secret", "private_key", "passphrase"})


def seal(values: dict[str, Any]) -> str | None:
    """``values`` encrypted as one opaque string; ``None`` when there is nothing to keep."""
    if not values:
        return None
    return _fernet().encrypt(json.dumps(values, sort_keys=True).encode()).decode()


def unseal(sealed: str | None) -> dict[str, Any]:
    """What ``seal`` encrypted; an empty mapping when nothing was kept or the key changed
    (then the values are lost, which is logged)."""
    if not sealed:
        return {}
    try:
        return json.loads(_fernet().decrypt(sealed.encode()))
    except (InvalidToken, ValueError):
        log.warning("Sealed deployment secrets cannot be decrypted (was the key changed?)")
        return {}


def secret_inputs(parsed: ParsedTemplate | None) -> dict[str, bool]:
    """The template's secret inputs by name, each with whether the portal may generate it."""
    if parsed is None:
        return {}
    return {spec.name: spec.generate for spec in parsed.inputs if spec.kind in SECRET_KINDS}


def split_parameters(
    parsed: ParsedTemplate | None, parameters: dict[str, Any], generated: set[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(parameters to store in clear, generated secrets to seal); typed secrets are in neither."""
    secret = secret_inputs(parsed)
    clear = {name: value for name, value in parameters.items() if name not in secret}
    kept = {name: parameters[name] for name in generated if name in secret and name in parameters}
    return clear, kept


def _credential_like(name: str, value: Any) -> bool:
    lowered = name.lower()
    if PASSWORD_NAME.search(name) or any(part in lowered for part in _CREDENTIAL_NAME):
        return True
    return isinstance(value, dict) and bool(_CREDENTIAL_KEYS & {str(k).lower() for k in value})


def split_outputs(
    parsed: ParsedTemplate | None, outputs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(outputs to store in clear, secret outputs to seal).

    Secret: outputs the template's metadata shows as "secret", and any output that looks like a
    credential by its name or its keys (an adopted deployment has no metadata to go by).
    """
    shown_secret = (
        {spec.name for spec in parsed.outputs if spec.show == "secret"} if parsed else set()
    )
    clear, secret = {}, {}
    for name, value in outputs.items():
        if name in shown_secret or _credential_like(name, value):
            secret[name] = value
        else:
            clear[name] = value
    return clear, secret
