"""Durations as people type them in lease policies: ``2m``, ``90m``, ``8h``, ``3d``.

The one reader and writer of these texts: the command line, the policy pages and the launch
form all go through it. Durations are kept as whole minutes, so a site can try a policy out in
minutes before setting it in days.
"""

from __future__ import annotations

import re

from flask_babel import gettext as _

from app.leases.errors import InvalidPolicy

UNITS = {"m": 1, "h": 60, "d": 24 * 60}
_DURATION_RE = re.compile(r"^\s*(\d{1,6})\s*([mhd])\s*$", re.IGNORECASE)
# Long enough for any sensible lease (a year and more), short enough to stay far from overflow.
MAX_MINUTES = 1000 * 24 * 60


def parse_duration(text: str, *, field: str | None = None, label: str | None = None) -> int:
    """Minutes in ``text`` (``90m``, ``8h``, ``3d``). Raises InvalidPolicy naming ``label``."""
    match = _DURATION_RE.match(str(text or ""))
    if not match:
        raise InvalidPolicy(
            _(
                "%(label)s: write a duration as a number and a unit, m, h or d (e.g. 90m, 8h, "
                "3d); got \u201c%(text)s\u201d.",
                label=label or _("Duration"),
                text=text,
            ),
            field=field,
        )
    minutes = int(match.group(1)) * UNITS[match.group(2).lower()]
    if minutes > MAX_MINUTES:
        raise InvalidPolicy(
            _("%(label)s: at most 1000 days.", label=label or _("Duration")), field=field
        )
    return minutes


def parse_durations(text: str, *, field: str | None = None, label: str | None = None) -> list[int]:
    """A comma-separated list (``24h,1h``) as minutes, longest first, without repeats."""
    parts = [part for part in str(text or "").split(",") if part.strip()]
    if not parts:
        raise InvalidPolicy(
            _("%(label)s: give one duration or more, separated by commas.", label=label or ""),
            field=field,
        )
    return sorted({parse_duration(part, field=field, label=label) for part in parts}, reverse=True)


def format_duration(minutes: int | None) -> str:
    """The shortest exact text for ``minutes``: ``3d``, ``8h``, ``90m`` (``0m`` for none)."""
    if minutes is None:
        return ""
    for unit in ("d", "h"):
        if minutes and minutes % UNITS[unit] == 0:
            return f"{minutes // UNITS[unit]}{unit}"
    return f"{minutes}m"


def format_durations(values: list[int] | None) -> str:
    return ",".join(format_duration(value) for value in values or [])


def spoken_duration(minutes: int) -> str:
    """``14 days``, ``8 hours``, ``90 minutes``: for sentences people read."""
    from flask_babel import ngettext

    if minutes and minutes % UNITS["d"] == 0:
        days = minutes // UNITS["d"]
        return ngettext("%(num)d day", "%(num)d days", days)
    if minutes and minutes % UNITS["h"] == 0:
        hours = minutes // UNITS["h"]
        return ngettext("%(num)d hour", "%(num)d hours", hours)
    return ngettext("%(num)d minute", "%(num)d minutes", minutes)
