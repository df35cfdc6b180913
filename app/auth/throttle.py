"""Slowing down password guessing: failures are counted per account and per address.

Counts live in the database so that every worker process sees the same numbers.
"""

from datetime import timedelta

from flask import current_app

from app.auth.errors import LoginThrottled
from app.auth.models import LoginFailure, utcnow
from app.extensions import db


def _keys(username: str, address: str) -> list[tuple[str, int]]:
    config = current_app.config
    return [
        ("account:" + username.strip().lower()[:255], config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]),
        ("address:" + (address or "unknown"), config["LOGIN_MAX_FAILURES_PER_ADDRESS"]),
    ]


def _window() -> timedelta:
    return timedelta(seconds=current_app.config["LOGIN_THROTTLE_WINDOW_SECONDS"])


def check_allowed(username: str, address: str) -> None:
    """Raise LoginThrottled when this account or address has failed too often recently."""
    now = utcnow()
    for key, limit in _keys(username, address):
        record = db.session.get(LoginFailure, key)
        if record and now - record.window_start < _window() and record.failures >= limit:
            wait = record.window_start + _window() - now
            minutes = max(1, round(wait.total_seconds() / 60))
            raise LoginThrottled(
                f"Too many failed attempts. Wait {minutes} minute{'s' if minutes > 1 else ''} "
                "before trying again."
            )


def record_failure(username: str, address: str) -> None:
    now = utcnow()
    for key, _limit in _keys(username, address):
        record = db.session.get(LoginFailure, key)
        if record is None:
            db.session.add(LoginFailure(key=key, failures=1, window_start=now))
        elif now - record.window_start >= _window():
            record.failures, record.window_start = 1, now
        else:
            record.failures += 1
    db.session.commit()


def record_success(username: str) -> None:
    """Forget the account's failures; the address keeps its count (it may be guessing others)."""
    key = _keys(username, "")[0][0]
    db.session.execute(db.delete(LoginFailure).where(LoginFailure.key == key))


def purge_expired() -> int:
    """Delete counters whose window has passed; returns how many."""
    cutoff = utcnow() - _window()
    result = db.session.execute(db.delete(LoginFailure).where(LoginFailure.window_start < cutoff))
    db.session.commit()
    return result.rowcount or 0


__all__ = ["check_allowed", "record_failure", "record_success", "purge_expired"]
