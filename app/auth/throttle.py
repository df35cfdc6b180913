"""Slowing down password guessing: attempts are counted per account and per address.

Counts live in the database so that every worker process sees the same numbers. An attempt is
counted *before* the password is checked, by one atomic upsert that refuses to go past the
limit: of twenty attempts arriving at once, only as many as the limit allows reach the password
check (and LDAP); a success or an unreachable directory gives the attempt back afterwards.

The table stays small: the address counter is taken first, so a throttled address cannot add
rows for new account names, and every recorded failure deletes counters whose window has
passed (an indexed delete).
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


def _take(key: str, limit: int, now: datetime) -> bool:
    """Count one attempt against ``key`` unless it is at ``limit``; True if it was counted."""
    table = LoginFailure.__table__
    expired = table.c.window_start <= now - _window()
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


def purge_expired() -> int:
    """Delete counters whose window has passed; returns how many."""
    cutoff = utcnow() - _window()
    result = db.session.execute(delete(LoginFailure).where(LoginFailure.window_start <= cutoff))
    db.session.commit()
    return result.rowcount or 0


__all__ = [
    "reserve_attempt",
    "release_attempt",
    "record_failure",
    "record_success",
    "purge_expired",
]
