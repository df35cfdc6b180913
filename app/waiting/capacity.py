"""The seam for the second reason to wait: no site has the GPUs free now.

Today a request waits only on the QUOTA reasons (the group's pool or the person's own limit
taken by running deployments). The capacity feature (per-site snapshots of free resources)
fills this slot with ``register_site_capacity(app, has_room)``, where ``has_room(charge,
group_name)`` says whether some site has room for a request of ``charge`` now. Then:

- the admission pass starts a request that fits its quotas only when ``has_room`` agrees
  (otherwise it stays in line and sets aside what it needs, as any request that does not fit);
- ``wait_or_launch`` may record a request that fits its quotas but has no room as waiting
  (in a line whose scope is "site"), instead of sending it to fail at the orchestrator.

With the slot empty (no capacity source configured) every site is taken to have room, which is
what the portal did before lines existed.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app

SLOT = "waiting.site_capacity"


def register_site_capacity(app, has_room: Callable[[dict, str | None], bool]) -> None:
    """Have the line ask ``has_room(charge, group_name)`` before it starts a request."""
    app.extensions[SLOT] = has_room


def site_has_room(charge: dict, group_name: str | None) -> bool:
    """Whether a site has room for ``charge`` now (True while no capacity source says)."""
    has_room = current_app.extensions.get(SLOT)
    return True if has_room is None else bool(has_room(charge, group_name))
