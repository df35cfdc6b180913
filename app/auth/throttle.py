"""Slowing down guessing: password attempts are counted per account and per address, and the
API's failed authentications per address (see "The API" below).

Counts live in the database so that every worker process sees the same numbers. An attempt is
counted *before* the password is checked, by one atomic upsert that refuses to go past the
limit: of twenty attempts arriving at once, only as many as the limit allows reach the password
check (and LDAP); a success or an unreachable directory gives the attempt back afterwards.

The table stays small: the address counter is taken first, so a throttled address cannot add
rows for new account names, and every recorded failure deletes counters whose window has
passed (an indexed delete).

The API: a request whose token is refused counts against its address, and an address at
``API_MAX_FAILURES_PER_ADDRESS`` within ``API_THROTTLE_WINDOW_SECONDS`` is refused before its
token is even looked at. Asking an identity provider about a token it alone can read (its
userinfo endpoint) is counted site-wide, at most ``API_PROVIDER_CHECKS_PER_MINUTE``: a flood of
made-up tokens cannot turn into a flood of calls to the provider.
"""

from datetime import datetime, timedelta

from flask import current_app
from flask_babel import ngettext
from sqlalchemy import case, delete, or_, update
from sqlalchemy.dialects import postgresql, sqlite

from app.auth.errors import LoginThrottled
from app.auth.models import LoginFailure
from app.clock import utcnow
from app.extensions import db

_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def _account_key(username: str) -> str:
    return "account:" + username.strip().lower()[:255]


def _address_key(address: str) -> str:
    return "address:" + (address or "unknown")[:64]


def _window() -> timedelta:
    return timedelta(seconds=current_app.config["LOGIN_THROTTLE_WINDOW_SECONDS"])


def _take(key: str, limit: int, now: datetime, window: timedelta | None = None) -> bool:
    """Count one attempt against ``key`` unless it is at ``limit`` within ``window`` (the
    login window when None); True if it was counted."""
    table = LoginFailure.__table__
    expired = table.c.window_start <= now - (window or _window())
    insert = _INSERTS[db.engine.dialect.name](table).values(key=key, failures=1, window_start=now)
    statement = insert.on_conflict_do_update(
        index_elements=[table.c.key],
        set_={
            "failures": case((expired, 1), else_=table.c.failures + 1),
            "window_start": case((expired, now), else_=table.c.window_start),
        },
        where=or_(expired, table.c.failures < limit),
    ).returning(table.c.failures)
    counted = db.session.execute(statement).first() is not None
    db.session.commit()
    return counted


def _give_back(key: str) -> None:
    db.session.execute(
        update(LoginFailure)
        .where(LoginFailure.key == key, LoginFailure.failures > 0)
        .values(failures=LoginFailure.failures - 1)
    )
    db.session.commit()


def _refusal(key: str, now: datetime) -> LoginThrottled:
    record = db.session.get(LoginFailure, key)
    start = record.window_start if record else now
    minutes = max(1, round((start + _window() - now).total_seconds() / 60))
    return LoginThrottled(
        ngettext(
            "Too many failed attempts. Wait %(num)d minute before trying again.",
            "Too many failed attempts. Wait %(num)d minutes before trying again.",
            minutes,
        )
    )


def reserve_attempt(username: str, address: str) -> None:
    """Count a login attempt before checking it; raises LoginThrottled when over a limit."""
    config, now = current_app.config, utcnow()
    address_key, account_key = _address_key(address), _account_key(username)
    if not _take(address_key, config["LOGIN_MAX_FAILURES_PER_ADDRESS"], now):
        raise _refusal(address_key, now)
    if not _take(account_key, config["LOGIN_MAX_FAILURES_PER_ACCOUNT"], now):
        _give_back(address_key)
        raise _refusal(account_key, now)


def release_attempt(username: str, address: str) -> None:
    """Give back an attempt that proved nothing (the directory could not be asked)."""
    _give_back(_account_key(username))
    _give_back(_address_key(address))


def record_failure(username: str, address: str) -> None:
    """The attempt failed: it stays counted. Old counters are cleared out meanwhile."""
    purge_expired()


def record_success(username: str, address: str) -> None:
    """Forget the account's failures and give the address its attempt back.

    The address keeps its earlier failures: it may be guessing other accounts.
    """
    db.session.execute(delete(LoginFailure).where(LoginFailure.key == _account_key(username)))
    _give_back(_address_key(address))


class ApiThrottled(LoginThrottled):
    """Too many refused tokens from one address, or the providers were asked too often;
    ``retry_after`` is in seconds."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def _api_key(address: str) -> str:
    return "api-address:" + (address or "unknown")[:64]


def _api_window() -> timedelta:
    return timedelta(seconds=current_app.config["API_THROTTLE_WINDOW_SECONDS"])


def _seconds_left(key: str, window: timedelta, now: datetime) -> int:
    record = db.session.get(LoginFailure, key)
    start = record.window_start if record else now
    return max(1, int((start + window - now).total_seconds()) + 1)


def refuse_throttled_api_address(address: str) -> None:
    """Raise ApiThrottled if ``address`` has had too many tokens refused lately (a read)."""
    now, window, key = utcnow(), _api_window(), _api_key(address)
    record = db.session.get(LoginFailure, key)
    limit = current_app.config["API_MAX_FAILURES_PER_ADDRESS"]
    if record is None or record.window_start <= now - window or record.failures < limit:
        return
    seconds = _seconds_left(key, window, now)
    minutes = max(1, round(seconds / 60))
    raise ApiThrottled(
        ngettext(
            "Too many requests with tokens that are not valid came from your address. Wait "
            "%(num)d minute before trying again.",
            "Too many requests with tokens that are not valid came from your address. Wait "
            "%(num)d minutes before trying again.",
            minutes,
        ),
        seconds,
    )


def record_api_failure(address: str) -> None:
    """A token from ``address`` was refused: count it (up to the limit)."""
    limit = current_app.config["API_MAX_FAILURES_PER_ADDRESS"]
    _take(_api_key(address), limit, utcnow(), _api_window())
    purge_expired()


def take_provider_check() -> None:
    """Count one call to an identity provider about an unknown token, site-wide; raises
    ApiThrottled when this minute's calls are spent."""
    now, window, key = utcnow(), timedelta(minutes=1), "provider-checks"
    limit = current_app.config["API_PROVIDER_CHECKS_PER_MINUTE"]
    if _take(key, limit, now, window):
        return
    raise ApiThrottled(
        ngettext(
            "The portal asks its identity provider about a token it does not know at most "
            "%(num)d time a minute, and this minute's are spent. Try again in a minute, or "
            "use a personal access token from your Account page.",
            "The portal asks its identity provider about tokens it does not know at most "
            "%(num)d times a minute, and this minute's are spent. Try again in a minute, or "
            "use a personal access token from your Account page.",
            limit,
        ),
        _seconds_left(key, window, now),
    )


def purge_expired() -> int:
    """Delete counters whose window has passed; returns how many."""
    cutoff = utcnow() - max(_window(), _api_window())
    result = db.session.execute(delete(LoginFailure).where(LoginFailure.window_start <= cutoff))
    db.session.commit()
    return result.rowcount or 0


__all__ = [
    "reserve_attempt",
    "release_attempt",
    "record_failure",
    "record_success",
    "purge_expired",
    "ApiThrottled",
    "refuse_throttled_api_address",
    "record_api_failure",
    "take_provider_check",
]
