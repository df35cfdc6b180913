"""The line's settings read as durations (written as leases write them: 90m, 8h, 3d)."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app

from app.errors import ConfigurationError
from app.leases.durations import parse_duration
from app.leases.errors import InvalidPolicy

DURATIONS = ("LINE_MAX_WAIT", "LINE_FAIR_SHARE_WINDOW", "LINE_FAIR_SHARE_MAX_DELAY")


def check(config) -> None:
    """Raises ConfigurationError naming a duration setting that cannot be read."""
    for name in DURATIONS:
        try:
            parse_duration(str(config[name]))
        except InvalidPolicy as error:
            raise ConfigurationError(f"{name}: {error.message}") from error


def _minutes(name: str) -> timedelta:
    return timedelta(minutes=parse_duration(str(current_app.config[name])))


def max_wait() -> timedelta:
    return _minutes("LINE_MAX_WAIT")


def fair_share_window() -> timedelta:
    return _minutes("LINE_FAIR_SHARE_WINDOW")


def fair_share_max_delay() -> timedelta:
    return _minutes("LINE_FAIR_SHARE_MAX_DELAY")
