"""The second reason to wait: no site has room for the request now.

A request that fits its quotas is started by the admission pass only when some known site may
have room for it: the rule is ``app.capacity.room``'s, the same that holds a launch back.
"""

from __future__ import annotations

from flask import current_app

from app.capacity.room import room_checker

__all__ = ["capacity_known", "room_checker"]


def capacity_known() -> bool:
    """Whether any source is configured: then room changes without a trace in the line."""
    return bool(current_app.config.get("CAPACITY_SOURCES"))
