"""Each notice in its reader's words: their language and time zone, else the site's.

A mail is written by the worker, outside any request of its recipient, so the language and the
time zone the request would pick are the wrong ones: ``in_words_of`` sets the recipient's for
the time the mail is composed and rendered.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app, g
from flask_babel import force_locale, get_timezone
from pytz import UnknownTimeZoneError, timezone

from app.i18n import LANGUAGES


def language_of(person) -> str:
    """The language ``person`` chose, else the site's default."""
    chosen = getattr(person, "locale", None)
    return chosen if chosen in LANGUAGES else current_app.config["DEFAULT_LOCALE"]


def time_zone_of(person) -> str:
    """The time zone ``person`` chose (an IANA name), else the site's default."""
    return getattr(person, "timezone", None) or current_app.config["DEFAULT_TIMEZONE"]


@contextmanager
def in_words_of(person) -> Iterator[None]:
    """Translate and format dates for ``person`` inside the block (needs an app context)."""
    try:
        zone = timezone(time_zone_of(person))
    except UnknownTimeZoneError:
        zone = timezone(current_app.config["DEFAULT_TIMEZONE"])
    with force_locale(language_of(person)):
        get_timezone()  # fills Flask-Babel's per-context cache, which the block overrides
        cache = g._flask_babel
        before = cache.babel_tzinfo
        cache.babel_tzinfo = zone
        try:
            yield
        finally:
            cache.babel_tzinfo = before
