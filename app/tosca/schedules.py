"""Chronos schedules: the ISO 8601 repeating interval a batch-job template expects
(``R10/2026-11-26T02:00:00Z/PT6H``), read into what a person chose and told back in plain
words. Chronos's own dialect is kept: an empty start means "now", ``R`` without a number
repeats until the job is deleted."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import isodate
from flask import has_app_context
from flask_babel import format_datetime, ngettext
from flask_babel import gettext as _

from app.formatting import when
from app.tosca.numbers import whole

_SHAPE = re.compile(r"R(?P<repeats>\d*)/(?P<start>[^/]*)/(?P<period>P[^/]+)")
# The units a person picks a period in, largest first.
UNITS = {"weeks": 7 * 86400, "days": 86400, "hours": 3600, "minutes": 60}
# Never more runs than this are listed or counted: "until deleted" is not a number.
_MOST_RUNS = 100_000


@dataclass(frozen=True)
class Schedule:
    """``repeats`` runs (None: until deleted), the first at ``start`` (naive UTC; None: as soon
    as submitted), one every ``period``."""

    repeats: int | None
    start: datetime | None
    period: timedelta | isodate.Duration

    def iso(self) -> str:
        """The ISO 8601 repeating interval Chronos reads."""
        start = self.start.strftime("%Y-%m-%dT%H:%M:%SZ") if self.start else ""
        repeats = "" if self.repeats is None else str(self.repeats)
        return f"R{repeats}/{start}/{isodate.duration_isoformat(self.period)}"

    def every(self) -> tuple[int, str] | None:
        """(count, unit of ``UNITS``) when the period is a whole number of one, else None."""
        if not isinstance(self.period, timedelta):
            return None
        seconds = int(self.period.total_seconds())
        for unit, size in UNITS.items():
            if seconds and seconds % size == 0:
                return seconds // size, unit
        return None

    def runs_from(self, first: datetime) -> list[datetime]:
        """The times of the first runs when the first is at ``first`` (at most a few)."""
        count = min(self.repeats if self.repeats is not None else _MOST_RUNS, 3)
        return [first + self.period * index for index in range(count)]

    def next_run(self, submitted: datetime, now: datetime) -> datetime | None:
        """When it runs next after ``now`` (it was submitted at ``submitted``), or None when
        every run is in the past."""
        first = self.start or submitted
        if first > now:
            return first
        if not isinstance(self.period, timedelta) or self.period <= timedelta(0):
            return None
        done = int((now - first) / self.period) + 1
        if self.repeats is not None and done >= self.repeats:
            return None
        return first + self.period * done

    def describe(self) -> str:
        """In plain words: "Once, now", "Every day at 02:00 UTC, 10 times, from 26 Nov 2026"."""
        if self.repeats == 1:
            if self.start is None:
                return _("Once, now")
            return _("Once, on %(when)s", when=plain_time(self.start))
        every = self.every()
        if every and every[1] in ("days", "weeks") and self.start is not None:
            often = _at(*every, time=_utc(self.start, "HH:mm"))
        elif every:
            often = _every(*every)
        else:
            often = _("Every %(period)s", period=isodate.duration_isoformat(self.period))
        if self.repeats is None:
            times = _("until deleted")
        else:
            times = ngettext("%(num)d time", "%(num)d times", self.repeats)
        if self.start is None:
            return _("%(often)s, %(times)s, starting now", often=often, times=times)
        daily = every is not None and every[1] in ("days", "weeks")
        when = _utc(self.start, "d MMM y") if daily else plain_time(self.start)
        return _("%(often)s, %(times)s, from %(when)s", often=often, times=times, when=when)


def _every(count: int, unit: str) -> str:
    words = {
        "weeks": ngettext("Every week", "Every %(num)d weeks", count),
        "days": ngettext("Every day", "Every %(num)d days", count),
        "hours": ngettext("Every hour", "Every %(num)d hours", count),
        "minutes": ngettext("Every minute", "Every %(num)d minutes", count),
    }
    return words[unit]


def _at(count: int, unit: str, time: str) -> str:
    # Each period its own sentence: "every day at", "ogni giorno alle" agree with the unit.
    if unit == "weeks":
        return ngettext(
            "Every week at %(time)s UTC", "Every %(num)d weeks at %(time)s UTC", count, time=time
        )
    return ngettext(
        "Every day at %(time)s UTC", "Every %(num)d days at %(time)s UTC", count, time=time
    )


def _utc(moment: datetime, pattern: str) -> str:
    """``moment`` (naive UTC) in the reader's language, kept in UTC: a schedule runs in UTC
    and says so."""
    if has_app_context():
        return format_datetime(moment.replace(tzinfo=UTC), pattern, rebase=False)
    return moment.strftime(
        {"HH:mm": "%H:%M", "d MMM y": "%d %b %Y"}.get(pattern, "%d %b %Y, %H:%M")
    )


def plain_time(moment: datetime) -> str:
    """``Nov 26, 2026, 02:00 UTC`` (``26 nov 2026, 02:00 UTC`` in Italian): written as every
    time of the portal (``app.formatting.when``), kept in UTC, where a schedule runs."""
    if has_app_context():
        return when(moment, zone="UTC")
    return moment.strftime("%d %b %Y, %H:%M UTC")


def parse_schedule(text: str) -> Schedule:
    """Read ``R[n]/[start]/period``; raises ValueError with a message for a person."""
    match = _SHAPE.fullmatch(str(text).strip())
    if not match:
        raise ValueError(
            _("must be a schedule such as R1//P1D (once, now) or R10/2026-11-26T02:00:00Z/PT6H")
        )
    repeats = whole(match["repeats"]) if match["repeats"] else None
    if repeats == 0:
        raise ValueError(_("must run at least once"))
    start = None
    if match["start"]:
        try:
            moment = isodate.parse_datetime(match["start"])
        except (isodate.ISO8601Error, ValueError):
            raise ValueError(_("has a start that is not a date and time")) from None
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        start = moment.replace(microsecond=0)
    try:
        period = isodate.parse_duration(match["period"])
    except (isodate.ISO8601Error, ValueError):
        raise ValueError(_("has a period that is not a duration such as PT6H or P1D")) from None
    if isinstance(period, timedelta) and period <= timedelta(0):
        raise ValueError(_("must have a period longer than zero"))
    return Schedule(repeats, start, period)
