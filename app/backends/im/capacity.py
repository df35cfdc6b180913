"""What a cloud line of the Infrastructure Manager may use and has used, in the portal's words:
IM's ``GET /clouds/<id>/quotas`` gives ``used`` and ``limit`` per resource (RAM and volume
storage in GiB), read as the service identity. What is left under a limit is the capacity
sources' one rule (``app.capacity.sources.base.free``); here only IM's words are read.
"""

from __future__ import annotations

from app.backends.base import Quota

# IM's resource: the portal's.
_RESOURCES = {
    "cores": "cores",
    "ram": "memory_gib",
    "volume_storage": "disk_gib",
    "instances": "instances",
    "gpus": "gpus",
}


def quotas_of(answer: dict) -> dict[str, Quota | None]:
    """IM's quotas ``answer`` by the portal's resource; None where IM says nothing of one."""
    found: dict[str, Quota | None] = {}
    for word, key in _RESOURCES.items():
        numbers = answer.get(word)
        found[key] = _quota(numbers) if isinstance(numbers, dict) else None
    return found


def _quota(numbers: dict) -> Quota:
    limit, used = numbers.get("limit"), numbers.get("used") or 0
    # IM's way of saying "no limit": zero or less.
    if not _number(limit) or limit <= 0:
        limit = None
    return Quota(limit=limit, used=used if _number(used) else 0)


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
