"""Login sessions the server can end: logout, a password reset, a disable, or the person.

Each successful login gets a row in ``user_sessions`` and a random token in the signed session
cookie; a request counts as logged in only while that row exists and has expired neither by
inactivity (SESSION_LIFETIME_MINUTES) nor absolutely (SESSION_ABSOLUTE_LIFETIME_HOURS).
Deleting the row ends the session everywhere at once, whichever worker or host serves the next
request, and a cookie captured before logout is worth nothing afterwards.

Why not Flask-Session: its SQLAlchemy backend keeps each session as an opaque serialised blob
keyed by session id, with no user column, so "list this person's sessions" and "end all of this
user's sessions" would mean decoding every row; it also creates its table outside the Alembic
migrations. What the portal keeps in a session (the login, CSRF token, flashed messages, OIDC
state) fits well in the signed cookie; what must live on the server is whether the login still
stands, and that is this small table.
"""

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import flask_login.utils
from flask import current_app, g, has_app_context, request, session
from flask.globals import _cv_app, _cv_request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlalchemy import bindparam, delete, or_, select, update
from sqlalchemy.orm import joinedload

from app.auth.models import User, UserSession
from app.caches import cached
from app.clock import utcnow
from app.extension_points import LOGIN_READINGS
from app.extensions import db, listen_once

SESSION_KEY = "login_token"
# A script logging in again and again must not make the account page unreadable.
SHOWN_AT_MOST = 100
_READ = "auth_login_readings"  # on ``g``: this request's readings, by name


@dataclass(frozen=True)
class LoginReading:
    """What features above this one read in the login's own query (the navigation bar's count
    of unread notices), plugged into ``LOGIN_READINGS`` at start: ``column_for(User.id)`` (a
    scalar subquery about the person) is read with every login check of a request for which
    ``wanted()`` holds, and ``login_reading(name)`` gives it."""

    name: str
    column_for: Callable[[Any], Any]  # the user id column -> a scalar subquery
    wanted: Callable[[], bool]  # whether this request needs it


def login_reading(name: str) -> Any | None:
    """What ``name`` read with this request's login check; None when it was not read, or
    when the request has written anything since (the value may be stale: ask again)."""
    return g.get(_READ, {}).get(name)


def _readings_wanted() -> dict[str, LoginReading]:
    # A later reading of a name replaces an earlier one.
    plugged = {reading.name: reading for reading in LOGIN_READINGS.each()}
    return {name: reading for name, reading in plugged.items() if reading.wanted()}


def listen() -> None:
    """Forget a request's readings once it writes (see ``login_reading``)."""
    listen_once(db.session, "after_flush", _forget_readings_after_flush)
    listen_once(db.session, "do_orm_execute", _forget_readings_before_writing)


def _forget_readings_after_flush(*_args) -> None:
    if has_app_context():
        g.pop(_READ, None)


def _forget_readings_before_writing(state) -> None:
    if has_app_context() and not state.is_select:
        g.pop(_READ, None)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _idle_limit() -> timedelta:
    return timedelta(minutes=current_app.config["SESSION_LIFETIME_MINUTES"])


def start(user: User) -> None:
    """Record a new login of ``user`` and bind it to the current (fresh) session cookie."""
    now = utcnow()
    token = secrets.token_urlsafe(32)
    db.session.add(
        UserSession(
            token_digest=_digest(token),
            user_id=user.id,
            provider=user.provider,
            address=(request.remote_addr or "")[:64],
            user_agent=identify_user_agent(request.user_agent.string),
            created_at=now,
            last_seen_at=now,
            expires_at=now + timedelta(hours=current_app.config["SESSION_ABSOLUTE_LIFETIME_HOURS"]),
        )
    )
    purge_expired(commit=False)
    db.session.commit()
    session[SESSION_KEY] = token


def logged_in_user(user_id: int, session_version: int) -> User | None:
    """The person behind this request's cookie while their login stands, or None.

    One query reads the account, its grants and the login record together, and what features
    read with it (``LOGIN_READINGS``): every page, poll and partial asks this first, and on
    a busy host each round trip to the database counts. The login is marked as seen at most
    once per SESSION_TOUCH_SECONDS, and never for background htmx requests: a page left
    polling does not keep a login alive.
    """
    token = session.get(SESSION_KEY)
    if not token:
        return None
    readings = _readings_wanted()
    query = cached("auth.login_queries", 64, tuple(readings), lambda: _login_query(readings))
    found = db.session.execute(query, {"user_id": user_id, "digest": _digest(token)})
    found = found.unique().first()
    if found is None:
        return None
    user, record_id, last_seen_at, expires_at, *values = found
    if user.session_version != session_version or not user.active:
        return None
    now = utcnow()
    if expires_at <= now or last_seen_at + _idle_limit() <= now:
        db.session.execute(delete(UserSession).where(UserSession.id == record_id))
        db.session.commit()
        return None
    touch_after = timedelta(seconds=current_app.config["SESSION_TOUCH_SECONDS"])
    if not request.headers.get("HX-Request") and now - last_seen_at >= touch_after:
        # A conditional update: of several requests arriving together, one writes.
        db.session.execute(
            update(UserSession)
            .where(UserSession.id == record_id, UserSession.last_seen_at == last_seen_at)
            .values(last_seen_at=now)
        )
        db.session.commit()
    # After the touch: what a request writes makes its readings stale, and this write is not
    # about them.
    setattr(g, _READ, dict(zip(readings, values, strict=True)))
    return user


def _login_query(readings: dict[str, LoginReading]):
    """The login check's query with ``readings``, for parameters ``user_id`` and ``digest``:
    built once per app and set of readings, since building it cost a poll more than its
    answer."""
    # The login record's columns alone: it is read on every request, and only to be judged.
    query = (
        select(User, UserSession.id, UserSession.last_seen_at, UserSession.expires_at)
        .join(UserSession, UserSession.user_id == User.id)
        .where(User.id == bindparam("user_id"), UserSession.token_digest == bindparam("digest"))
        .options(joinedload(User.grants))
    )
    for name, reading in readings.items():
        query = query.add_columns(reading.column_for(User.id).label(name))
    return query


def current_id() -> int | None:
    """The id of the login behind this request, when there is one."""
    token = session.get(SESSION_KEY)
    if not token:
        return None
    return db.session.scalar(
        select(UserSession.id).where(UserSession.token_digest == _digest(token))
    )


def end_current() -> None:
    """End the login behind this request's cookie (logout)."""
    token = session.pop(SESSION_KEY, None)
    if token:
        db.session.execute(delete(UserSession).where(UserSession.token_digest == _digest(token)))
        db.session.commit()


def end_all(user: User, *, commit: bool = True) -> int:
    """End every login of ``user``; returns how many there were."""
    result = db.session.execute(delete(UserSession).where(UserSession.user_id == user.id))
    if commit:
        db.session.commit()
    return result.rowcount or 0


def end_one(user: User, session_id: int) -> bool:
    """End one of ``user``'s logins by id; False if there was no such login of theirs."""
    result = db.session.execute(
        delete(UserSession).where(UserSession.id == session_id, UserSession.user_id == user.id)
    )
    db.session.commit()
    return bool(result.rowcount)


def end_others(user: User, keep_id: int | None) -> int:
    """End every login of ``user`` but ``keep_id``; returns how many were ended."""
    result = db.session.execute(
        delete(UserSession).where(UserSession.user_id == user.id, UserSession.id != keep_id)
    )
    db.session.commit()
    return result.rowcount or 0


@dataclass(frozen=True)
class LoginView:
    """One login as shown to its owner or to an admin."""

    id: int
    provider: str
    address: str
    user_agent: str
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime
    ends_absolutely: bool  # the absolute lifetime, not inactivity, decides when it ends
    current: bool


def sessions_of(user: User, current_id: int | None = None) -> list[LoginView]:
    """``user``'s live logins, the most recently used first (at most SHOWN_AT_MOST)."""
    now = utcnow()
    records = db.session.scalars(
        select(UserSession)
        .where(
            UserSession.user_id == user.id,
            UserSession.expires_at > now,
            UserSession.last_seen_at > now - _idle_limit(),
        )
        .order_by(UserSession.last_seen_at.desc(), UserSession.id.desc())
        .limit(SHOWN_AT_MOST)
    )
    return [
        LoginView(
            r.id,
            r.provider,
            r.address,
            describe_user_agent(r.user_agent),
            r.created_at,
            r.last_seen_at,
            min(r.expires_at, r.last_seen_at + _idle_limit()),
            r.expires_at <= r.last_seen_at + _idle_limit(),
            r.id == current_id,
        )
        for r in records
    ]


def purge_expired(*, commit: bool = True) -> int:
    """Delete logins that have expired either way; returns how many."""
    now = utcnow()
    result = db.session.execute(
        delete(UserSession).where(
            or_(UserSession.expires_at <= now, UserSession.last_seen_at <= now - _idle_limit())
        )
    )
    if commit:
        db.session.commit()
    return result.rowcount or 0


# A login keeps the browser and system it came from as names ("Firefox|Linux"), put into words
# only when shown, in the language of whoever reads the list.
_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chromium/", "Chromium"),
    ("HeadlessChrome/", "HeadlessChrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("curl/", "curl"),
    ("python-requests/", "python-requests"),
)
# Names that are words rather than products; the others are shown as they are.
_BROWSER_WORDS = {
    "HeadlessChrome": _l("Chrome (headless)"),
    "python-requests": _l("Python script"),
}
_SEPARATOR = "|"
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def identify_user_agent(agent: str) -> str:
    """What a login stores of its User-Agent header: "browser|system" when either is known,
    else the header's first characters (shown as they are)."""
    browser = next((name for marker, name in _BROWSERS if marker in agent), "")
    system = next((name for marker, name in _SYSTEMS if marker in agent), "")
    if browser or system:
        return f"{browser}{_SEPARATOR}{system}"
    return agent[:60].replace(_SEPARATOR, " ")


def describe_user_agent(stored: str) -> str:
    """A stored browser in words ("Firefox on Linux"), in the reader's language."""
    if _SEPARATOR not in stored:
        return stored or _("Unknown browser")
    browser, system = stored.split(_SEPARATOR, 1)
    browser = str(_BROWSER_WORDS.get(browser, browser))
    if browser and system:
        return _("%(browser)s on %(system)s", browser=browser, system=system)
    return browser or system


def summarise_user_agent(agent: str) -> str:
    """A short description of a browser ("Firefox on Linux") from its User-Agent header."""
    return describe_user_agent(identify_user_agent(agent))


def request_user():
    """Flask-Login's ``_get_user``: the person of this request (loading them on first asking),
    or None outside a request; reading the contexts directly rather than through ``g``'s
    proxy. ``current_user`` asks this each time it is read, thirty times in a page's views,
    checks and bar, and the proxy's steps were most of each asking."""
    if _cv_request.get(None) is None:
        return None
    attributes = _cv_app.get().g.__dict__
    if "_login_user" not in attributes:
        current_app.login_manager._load_user()
    return attributes["_login_user"]


def loaded_user():
    """The person of this request if they were already looked up (``request_user``), else None;
    never looks them up."""
    app_context = _cv_app.get(None)
    if app_context is None or _cv_request.get(None) is None:
        return None
    return app_context.g.__dict__.get("_login_user")


def init_request_user() -> None:
    """Have ``current_user`` (and the templates' copy) found by ``request_user``."""
    flask_login.utils._get_user = request_user
