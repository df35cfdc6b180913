"""Whether some known site may have room for a request: the one owner of the rule that holds a
launch back (``app.launch``) and keeps a request in its "free at a site" line (``app.lines``).

A site whose numbers say it "does not fit" (fresh numbers, no maintenance, no failed read, too
little free) has no room; one that "may not fit" (stale numbers, maintenance, a failed read,
numbers a source does not give) may, since a wrong capacity verdict is worse than none. With no
site known (no capacity source configured, or none read yet) every request has room, which is
what the portal did before it read the sites.
"""

from __future__ import annotations

from collections.abc import Callable

from app.capacity import snapshot
from app.capacity.verdicts import Verdict, site_verdicts


def room_checker() -> Callable[[dict], bool]:
    """Whether some known site may have room for a request's charge, by the sites' numbers
    as they are now (read once: a pass asks it of every request)."""
    frees = snapshot.current()
    if not frees:
        return lambda _charge: True
    return lambda charge: any(
        v.verdict is not Verdict.DOES_NOT_FIT for v in site_verdicts(charge, frees)
    )


def has_room(charge: dict) -> bool:
    """Whether some known site may have room for ``charge`` now (see the module's docstring)."""
    return room_checker()(charge)
