"""The second reason to wait: no site has room for the request now.

A request that fits its quotas is started by the admission pass only when some known site may
have room for it (``app.capacity.verdicts``): a site whose numbers say it "does not fit" holds
it back; one that "may not fit" (stale numbers, maintenance, a failed read, numbers a source
does not give) never does, since a wrong capacity verdict is worse than none. With no site
known (no capacity source configured, or none read yet) every request has room, which is what
the portal did before lines existed.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import current_app

from app.capacity import snapshot
from app.capacity.verdicts import Verdict, site_verdicts


def capacity_known() -> bool:
    """Whether any source is configured: then room changes without a trace in the line."""
    return bool(current_app.config.get("CAPACITY_SOURCES"))


def room_checker() -> Callable[[dict], bool]:
    """Whether some known site may have room for a request's charge, by the sites' numbers
    as they are now (read once: a pass asks it of every request)."""
    frees = snapshot.current()
    if not frees:
        return lambda _charge: True
    return lambda charge: any(
        v.verdict is not Verdict.DOES_NOT_FIT for v in site_verdicts(charge, frees)
    )
