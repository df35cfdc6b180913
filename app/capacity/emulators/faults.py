"""The faults every emulated source shares, applied before it answers."""

from __future__ import annotations

from flask import jsonify

from app.capacity.emulators.world import World


def before_answer(world: World, name: str, cloud: str | None = None):
    """Record the call; hold it or refuse it as the faults say (those of IM cloud ``cloud``
    too). Returns an answer to send instead of the source's own, or None."""
    world.calls.append(name)
    faults = world.faults
    own = faults.clouds.get(cloud) if cloud is not None else None
    if faults.hang_seconds or own == "hang":
        # Held until released or the time passes: the client's timeout ends it first.
        faults.release.wait(faults.hang_seconds or 30)
    if faults.refuse is True or (isinstance(faults.refuse, set) and name in faults.refuse):
        return jsonify({"detail": "Not authenticated"}), 401
    if isinstance(own, int):
        return jsonify({"message": f"Error getting quotas of cloud {cloud}", "code": own}), own
    return None
