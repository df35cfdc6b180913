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
token is even looked at.

Asking an identity provider about a token it alone can read (its userinfo endpoint) is counted
site-wide, at most ``API_PROVIDER_CHECKS_PER_MINUTE``: a flood of made-up tokens cannot turn
into a flood of calls to the provider. Only checks that fail keep their count (a token the
provider vouches for gives it back), and failures cannot spend what others need: each address
may have only a share of the minute's budget, and a reserve of it is kept for addresses with
no check under way or failed this minute, so a real user's first check of the minute finds room
while a few addresses send made-up tokens. A token the provider refused is remembered for
``API_THROTTLE_WINDOW_SECONDS`` (by digest, in the database, for every process) and not asked
about again.
"""

from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
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
    return _take_count(key, limit, now, window) is not None


def _take_count(key: str, limit: int, now: datetime, window: timedelta | None = None) -> int | None:
    """As ``_take``; the count including this attempt, or None when it was not counted."""
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
    row = db.session.execute(statement).first()
    db.session.commit()
    return None if row is None else row.failures


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


# An address may spend a twentieth of the providers' budget a minute, and a quarter of it is
# kept for addresses with no check under way or failed this minute: six addresses at their
# share leave the reserve and more untouched, so a real user's check finds room (README).
PROVIDER_SHARE_DIVISOR = 20
PROVIDER_RESERVE_DIVISOR = 4
_PROVIDER_SITE_KEY = "provider-checks"


def _provider_address_key(address: str) -> str:
    return "provider-checks:" + (address or "unknown")[:64]


def take_provider_check(address: str) -> None:
    """Count one call to an identity provider about an unknown token from ``address``, against
    the address's share and the site's budget; raises ApiThrottled when either is spent.

    Give it back with ``give_back_provider_check`` when the provider vouched for the token.
    """
    now, window = utcnow(), timedelta(minutes=1)
    limit = current_app.config["API_PROVIDER_CHECKS_PER_MINUTE"]
    address_key = _provider_address_key(address)
    taken = _take_count(address_key, max(1, limit // PROVIDER_SHARE_DIVISOR), now, window)
    if taken is None:
        raise ApiThrottled(
            _(
                "Too many tokens that the identity provider did not accept came from your "
                "address this minute. Wait a minute before trying again, or use a personal "
                "access token from your Account page."
            ),
            _seconds_left(address_key, window, now),
        )
    # Only an address's first check of the minute may reach into the reserve.
    reserve = max(1, limit // PROVIDER_RESERVE_DIVISOR) if taken > 1 else 0
    if _take(_PROVIDER_SITE_KEY, max(1, limit - reserve), now, window):
        return
    _give_back(address_key)
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
        _seconds_left(_PROVIDER_SITE_KEY, window, now),
    )


def give_back_provider_check(address: str) -> None:
    """The provider vouched for the token: its check spends neither budget."""
    _give_back(_provider_address_key(address))
    _give_back(_PROVIDER_SITE_KEY)


def _refused_token_key(digest: str) -> str:
    return "refused-token:" + digest[:128]


def remember_refused_token(digest: str) -> None:
    """The provider refused the token with this ``digest``: do not ask about it again within
    the API window, whichever process it reaches."""
    table, now = LoginFailure.__table__, utcnow()
    insert = _INSERTS[db.engine.dialect.name](table).values(
        key=_refused_token_key(digest), failures=1, window_start=now
    )
    db.session.execute(
        insert.on_conflict_do_update(index_elements=[table.c.key], set_={"window_start": now})
    )
    db.session.commit()


def refused_lately(digest: str) -> bool:
    """Whether the provider refused the token with this ``digest`` within the API window."""
    record = db.session.get(LoginFailure, _refused_token_key(digest))
    return record is not None and record.window_start > utcnow() - _api_window()


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
    "give_back_provider_check",
    "remember_refused_token",
    "refused_lately",
]
