"""The order of the line, written down: who goes first, and who may start now.

The rule, as operators read it (README, "Waiting in line"):

1. First come, first served within a line: a request's place is the moment it joined.
2. Fair share: each GPU-hour its owner's deployments held in the last LINE_FAIR_SHARE_WINDOW
   (measured when it joins) moves the request back by LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR
   minutes. ``LINE_FAIR_SHARE = False`` turns this off: the moment it joined alone counts.
3. Ageing bound: no request is moved back by more than LINE_FAIR_SHARE_MAX_DELAY, so none
   ever waits behind a request that joined longer than that after it, however many keep
   arriving.
4. An operator may move a request to another place (with a reason the owner is told); the
   place chosen then stands instead of rules 1 to 3.
5. Backfill without overtaking: requests are taken in that order; one that fits now starts. One
   that does not fit sets aside what it needs of the limits of each owner it is short of (the
   group's pool, or its owner's own limits), so a request behind it that counts against those
   starts only if it fits in what is left. A small request is therefore never held behind a
   large one for a resource it does not need, never takes what the one ahead of it is waiting
   for, and a request waiting on its owner's own limit holds nothing of the group's pool.
6. A person's launch comes after every request already waiting: planned last by the same rule,
   it starts at once only if it fits beside what they set aside (``ahead``).

``plan`` applies rule 5 to requests already in order; it reads no database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

# A limit's key: (scope, subject, resource, model), e.g. ("group", "physics", "gpus", "A100").
Key = tuple[str, str, str, str | None]
_SLACK = 1e-9


def penalty(recent_gpu_hours: float, minutes_per_gpu_hour: float, max_delay: timedelta):
    """How far back fair share moves a request whose owner held ``recent_gpu_hours``."""
    moved = timedelta(minutes=max(recent_gpu_hours, 0.0) * max(minutes_per_gpu_hour, 0.0))
    return min(moved, max_delay)


def order_key(
    enqueued_at: datetime,
    fair_at: datetime,
    placed_at: datetime | None,
    entry_id: int,
    *,
    fair_share: bool,
):
    """The sort key of a request in its line (rules 1 to 4); ties go to the older record."""
    return (placed_at or (fair_at if fair_share else enqueued_at), entry_id)


@dataclass
class Request:
    """A waiting request as the plan sees it: what it needs of each limit it counts against."""

    id: int
    needs: dict[Key, float] = field(default_factory=dict)


@dataclass
class Plan:
    """What one pass may do: ``admit`` (in order) and ``never_fit``, requests over a limit by
    themselves now (the limit was lowered since they joined); ``short_of``, for each request
    held back, the limits it found no room in (empty when only ``startable`` held it)."""

    admit: list[int] = field(default_factory=list)
    never_fit: list[int] = field(default_factory=list)
    short_of: dict[int, list[Key]] = field(default_factory=dict)


def plan(
    requests: Iterable[Request],
    limits: Mapping[Key, float | None],
    used: Mapping[Key, float],
    *,
    most: int | None = None,
    startable: Callable[[int], bool] | None = None,
) -> Plan:
    """Rule 5 over ``requests`` (already in order) against ``limits`` (None: unlimited) and
    what is ``used`` now; at most ``most`` admitted. ``startable(id)`` may hold back a request
    that fits its limits (no site has room for it: ``capacity``); it then sets aside what it
    needs like any request that does not fit."""
    taken = defaultdict(float, used)
    set_aside: dict[Key, float] = defaultdict(float)
    result = Plan()
    for request in requests:
        counted = {
            key: amount
            for key, amount in request.needs.items()
            if amount > 0 and limits.get(key) is not None
        }
        if any(amount > limits[key] + _SLACK for key, amount in counted.items()):
            result.never_fit.append(request.id)
            continue
        tight = [
            key
            for key, amount in counted.items()
            if taken[key] + set_aside[key] + amount > limits[key] + _SLACK
        ]
        short = {key[:2] for key in tight}
        room = most is None or len(result.admit) < most
        if not short and room and (startable is None or startable(request.id)):
            result.admit.append(request.id)
            for key, amount in counted.items():
                taken[key] += amount
            continue
        result.short_of[request.id] = tight
        # Held back: it keeps its turn on the limits it waits for (all of them, when it fits
        # but may not start now).
        for key, amount in counted.items():
            if not short or key[:2] in short:
                set_aside[key] += amount
    return result
