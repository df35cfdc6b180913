"""What a cloud line of the Infrastructure Manager has left under its quotas, in the portal's
words: IM's ``GET /clouds/<id>/quotas`` gives ``used`` and ``limit`` per resource (RAM and
volume storage in GiB; a limit of zero or less is no limit), read as the service identity.
"""

from __future__ import annotations

from typing import Any

from app.backends.im.backend import im_backend

# IM's resource: the portal's.
_RESOURCES = {
    "cores": "cores",
    "ram": "memory_gib",
    "volume_storage": "disk_gib",
    "instances": "instances",
    "gpus": "gpus",
}


def free_capacity(cloud_id: str, url: str | None = None) -> dict[str, Any]:
    """``{"cores", "memory_gib", "disk_gib", "instances", "gpus"}`` left at cloud line
    ``cloud_id`` (None: IM gives no limit, or says nothing of it), read from IM_URL or
    ``url``. Raises the errors of ``app.backends.base`` as every IM call does."""
    with im_backend(url=url) as backend:
        quotas = backend.client.quotas(cloud_id)
    found: dict[str, Any] = {}
    for word, key in _RESOURCES.items():
        numbers = quotas.get(word)
        found[key] = _left(numbers) if isinstance(numbers, dict) else None
    return found


def _left(numbers: dict) -> float | None:
    limit, used = numbers.get("limit"), numbers.get("used") or 0
    if not isinstance(limit, int | float) or isinstance(limit, bool) or limit <= 0:
        return None
    if not isinstance(used, int | float) or isinstance(used, bool):
        used = 0
    return max(float(limit) - float(used), 0.0)
