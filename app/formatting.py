"""Dates, times, numbers and sizes as the person reads them: in their language and time zone.

Every page and e-mail formats through here (the template filters in ``app.templating`` are these
functions), so that "25 nov 2026, 14:05 CET" and "1,5 GB" look the same wherever they appear.
Stored times are naive UTC (``app.clock.utcnow``). Outside a request (the mail worker), the
language is the one ``flask_babel.force_locale`` sets and the zone is passed as ``zone``.
"""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from babel import numbers
from babel.dates import format_skeleton
from flask_babel import format_timedelta, get_locale, get_timezone

from app.clock import utcnow

# Sizes are shown in the unit they were most likely written in: whole decimal units first (a
# flavour's "8 GB"), then whole binary ones ("2 GiB"), else one decimal place.
_WHOLE_UNITS = (("TB", 10**12), ("TiB", 2**40), ("GB", 10**9), ("GiB", 2**30))
_ROUGH_UNITS = (("TB", 10**12, "#,##0.#"), ("GB", 10**9, "#,##0.#"), ("MB", 10**6, "#,##0"))
# Formatted moments and numbers kept per process, by value, zone and language: a page shows
# dozens (every row's dates, every quota's figures), mostly the same ones as the page before,
# and Babel builds each from the language's data anew (tens of microseconds apiece). A given
# value, zone and language always give the same text, so nothing kept can be stale. They are
# kept under the names of the zone and language: a Babel ``Locale`` hashes and compares itself
# in Python, a new one every request, which cost more than the text kept.
_KEPT = 4096
_moments: dict[tuple, str] = {}
_days: dict[tuple, str] = {}
_decimals: dict[tuple, str] = {}


def _keep(kept: dict, key: tuple, text: str) -> str:
    """``text`` kept under ``key``; a full store is emptied first (a page's worth of texts is
    soon built again), so it holds at most ``_KEPT``."""
    if len(kept) >= _KEPT:
        kept.clear()
    kept[key] = text
    return text


def _language(locale) -> tuple | None:
    """What names ``locale``, as ``Locale`` compares itself, in a key compared in C; None
    outside a request (a worker's or a command's text), where Babel takes its default."""
    if locale is None:
        return None
    return (locale.language, locale.territory, locale.script, locale.variant, locale.modifier)


def _zone(zone: str | None):
    return ZoneInfo(zone) if zone else get_timezone()


def _as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


# How machines read a moment (the API, ``rcp --json``, ``<time datetime>``, timeline details):
# ISO 8601 in UTC, to the second, its zone always written.
MACHINE_TIME = "%Y-%m-%dT%H:%M:%SZ"


def machine_time(value: datetime | None) -> str | None:
    """``2026-11-27T14:00:00Z``: the one way a moment is written for machines (a naive moment
    is UTC, the database's convention; an aware one is moved to UTC first)."""
    if value is None:
        return None
    return _as_utc(value).astimezone(UTC).strftime(MACHINE_TIME)


def when(value: datetime | None, zone: str | None = None) -> str:
    """A moment with its date, hour and minute in the person's zone, the zone named:
    "Nov 25, 2026, 14:05 CET" in English, "25 nov 2026, 14:05 CET" in Italian."""
    if value is None:
        return ""
    return moments(zone)(value)


def moments(zone: str | None = None):
    """``when`` for many moments in a row (a list's rows): the person's zone and language are
    looked up once, not once per moment."""
    zone_info, locale = _zone(zone), get_locale()
    # A moment is kept as given (naive UTC or aware): equal keys are the same instant.
    place = (str(zone_info), _language(locale))
    kept = _moments

    def moment(value: datetime | None) -> str:
        if value is None:
            return ""
        key = (value, place)
        shown = kept.get(key)
        if shown is None:
            shown = _keep(kept, key, _moment(_as_utc(value), zone_info, locale))
        return shown

    return moment


def _moment(value: datetime, zone, locale) -> str:
    local = value.astimezone(zone)
    # A 24-hour clock in both languages, joined to the date as the language joins them; the
    # zone by its own abbreviation ("CET", "UTC", "EST"), shorter and more familiar than CLDR's
    # localised names, and the same in both languages.
    moment = str(locale.datetime_formats["medium"]).format(
        format_skeleton("Hm", local, locale=locale), format_skeleton("yMMMd", local, locale=locale)
    )
    return f"{moment} {local.tzname()}"


def day(value: date | datetime | None, zone: str | None = None) -> str:
    """A date alone, "Nov 25, 2026" / "25 nov 2026"; a moment is first moved to the zone."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        value = _as_utc(value).astimezone(_zone(zone)).date()
    locale = get_locale()
    key = (value, _language(locale))
    shown = _days.get(key)
    if shown is None:
        shown = _keep(_days, key, format_skeleton("yMMMd", value, locale=locale))
    return shown


def format_decimal(value: int | float | Decimal, format: str | None = None) -> str:
    """``value`` with the separators of the language being served (Flask-Babel's
    ``format_decimal``), kept once formatted."""
    # The type is part of the key: True and 1, 1 and 1.0 are equal keys but not the same text.
    locale = get_locale()
    key = (type(value), value, format, _language(locale))
    shown = _decimals.get(key)
    if shown is None:
        shown = _keep(_decimals, key, numbers.format_decimal(value, format=format, locale=locale))
    return shown


def plural_count(amount: int | float | Decimal) -> int:
    """The number gettext picks a plural form by, for an amount that may be a fraction.

    gettext's plural rules take whole numbers only (a float is deprecated, and an error under
    warnings-as-errors). A fraction reads as the many form ("2.5 cores", "2,5 core"): CLDR's
    "other" in English and Italian, which 2 selects.
    """
    if float(amount).is_integer():
        return int(amount)
    return 2


def relative(value: datetime | timedelta | None, now: datetime | None = None) -> str:
    """How far a moment is from now, or a span, in words: "in 3 hours", "tra 3 ore",
    "2 days ago"; a timedelta alone reads "3 hours"."""
    if value is None:
        return ""
    if isinstance(value, timedelta):
        return format_timedelta(value, threshold=0.9)
    moment = _as_utc(value)
    reference = _as_utc(now or utcnow())
    return format_timedelta(moment - reference, add_direction=True, threshold=0.9)


def number(value: int | float | Decimal | None, places: int | None = None) -> str:
    """A number with the language's separators: "1,234.5" / "1.234,5"; ``places`` fixes the
    decimals shown."""
    if value is None:
        return ""
    if places is not None:
        pattern = "#,##0" + ("." + "0" * places if places else "")
        return format_decimal(value, format=pattern)
    return format_decimal(value)


def size(value: int | float | None) -> str:
    """Bytes in a unit people read: "8 GB", "2 GiB", "1.5 GB" / "1,5 GB"."""
    if value is None:
        return ""
    value = int(value)
    for unit, factor in _WHOLE_UNITS:
        if value >= factor and value % factor == 0:
            return f"{format_decimal(value // factor)} {unit}"
    for unit, factor, pattern in _ROUGH_UNITS:
        if value >= factor:
            return f"{format_decimal(value / factor, format=pattern)} {unit}"
    return f"{format_decimal(value)} B"
