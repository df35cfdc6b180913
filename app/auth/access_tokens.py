"""Personal access tokens: what scripts and the ``rcp`` client send instead of a browser session.

A token is shown once, when it is created; only its SHA-256 digest is stored (the token is 256
random bits, so a fast digest cannot be reversed and lets every request find its row by index).
Each token has a name, scopes, an expiry no later than ``API_TOKEN_MAX_DAYS`` and records when
and from where it was last used. Revoking sets ``revoked_at``; disabling the account revokes all
of its tokens, so enabling it again does not bring them back.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from sqlalchemy import JSON, ForeignKey, String, select, update
from sqlalchemy.orm import Mapped, joinedload, mapped_column, relationship

from app.auth.models import User
from app.clock import utcnow
from app.errors import NotFound, PortalError
from app.extensions import db

# Every scope a token can carry, with what it lets a script do.
SCOPES = {
    "deployments:read": lazy_gettext("see your deployments, their status and outputs"),
    "deployments:write": lazy_gettext("launch, relaunch and delete deployments"),
    "templates:read": lazy_gettext("read the catalogue and its input forms"),
    "quota:read": lazy_gettext("see your quota and usage"),
}
PREFIX = "rcp_"
NAME_MAX = 100
_DURATION = re.compile(r"\s*(\d{1,5})\s*([hdw]?)\s*")


class InvalidToken(PortalError):
    """A token request that cannot be granted (bad name, scopes or lifetime)."""

    status_code = 400


class AccessToken(db.Model):
    """One personal access token of one user."""

    __tablename__ = "access_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    # The first characters, shown in lists so that people can tell their tokens apart.
    hint: Mapped[str] = mapped_column(String(16))
    scopes: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None] = mapped_column(nullable=True)
    last_used_address: Mapped[str] = mapped_column(String(64), default="")
    revoked_at: Mapped[datetime | None] = mapped_column(nullable=True)

    user: Mapped[User] = relationship()

    @property
    def live(self) -> bool:
        return self.revoked_at is None and self.expires_at > utcnow()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_scopes(text: str | list[str]) -> list[str]:
    """Scopes from "a,b" or a list; raises InvalidToken naming an unknown one."""
    names = text.split(",") if isinstance(text, str) else list(text)
    scopes = sorted({name.strip() for name in names if name.strip()})
    unknown = [name for name in scopes if name not in SCOPES]
    if unknown:
        raise InvalidToken(
            _(
                "Unknown scope %(scope)s; choose among %(known)s.",
                scope=unknown[0],
                known=", ".join(SCOPES),
            ),
            "scopes",
        )
    if not scopes:
        raise InvalidToken(_("Choose at least one scope."), "scopes")
    return scopes


def parse_lifetime(text: str) -> timedelta:
    """A lifetime such as "30d", "12h", "2w" or "30" (days); raises InvalidToken."""
    match = _DURATION.fullmatch(text or "")
    if not match or int(match.group(1)) == 0:
        raise InvalidToken(
            _("Give the lifetime as a number of days, like 30d (or hours: 12h, weeks: 2w)."),
            "expires",
        )
    number, unit = int(match.group(1)), match.group(2) or "d"
    return {"h": timedelta(hours=number), "d": timedelta(days=number)}.get(
        unit, timedelta(weeks=number)
    )


def lifetime_in_days(days: int) -> timedelta:
    """``days`` as a token lifetime; raises InvalidToken past ``API_TOKEN_MAX_DAYS``.

    The number is checked before it becomes a timedelta: a lifetime of 10^12 days cannot even
    be built.
    """
    longest = current_app.config["API_TOKEN_MAX_DAYS"]
    if days > longest:
        raise _too_long(longest)
    return timedelta(days=days)


def _too_long(longest: int) -> InvalidToken:
    return InvalidToken(
        _("A token can live %(days)d days at most on this portal.", days=longest), "expires"
    )


def create(
    user: User, name: str, scopes: list[str], lifetime: timedelta
) -> tuple[AccessToken, str]:
    """Create a token for ``user``; returns the record and the token, which is never shown again.

    Raises InvalidToken for an empty or long name, unknown scopes, a lifetime beyond
    ``API_TOKEN_MAX_DAYS``, or an account that is disabled.
    """
    name = " ".join((name or "").split())
    if not name or len(name) > NAME_MAX:
        raise InvalidToken(
            _("Give the token a name of up to %(count)d characters.", count=NAME_MAX), "name"
        )
    scopes = parse_scopes(scopes)
    longest = current_app.config["API_TOKEN_MAX_DAYS"]
    if lifetime > timedelta(days=longest):
        raise _too_long(longest)
    if not user.active:
        raise InvalidToken(_("This account is disabled; it cannot have tokens."))
    token = PREFIX + secrets.token_urlsafe(32)
    record = AccessToken(
        user_id=user.id,
        name=name,
        digest=digest(token),
        hint=token[: len(PREFIX) + 4],
        scopes=scopes,
        expires_at=utcnow() + lifetime,
    )
    db.session.add(record)
    db.session.commit()
    return record, token


def authenticate(token: str, address: str) -> AccessToken | None:
    """The live token record for ``token`` (its user active), or None; notes its use."""
    # The user comes in the same query: every API request needs both.
    record = db.session.scalar(
        select(AccessToken)
        .options(joinedload(AccessToken.user))
        .where(AccessToken.digest == digest(token))
    )
    if record is None or not record.live or not record.user.active:
        return None
    now = utcnow()
    touch = timedelta(seconds=current_app.config["SESSION_TOUCH_SECONDS"])
    # Written at most once a minute per token (or when the address changes): a busy script
    # must not turn every read into a write.
    if (
        record.last_used_at is None
        or now - record.last_used_at >= touch
        or record.last_used_address != address
    ):
        record.last_used_at, record.last_used_address = now, address[:64]
        db.session.commit()
    return record


def tokens_of(user: User) -> list[AccessToken]:
    """``user``'s tokens that have not been revoked, newest first (expired ones included)."""
    return list(
        db.session.scalars(
            select(AccessToken)
            .where(AccessToken.user_id == user.id, AccessToken.revoked_at.is_(None))
            .order_by(AccessToken.created_at.desc(), AccessToken.id.desc())
        )
    )


def revoke(user: User, token_id: int) -> AccessToken:
    """Revoke ``user``'s token ``token_id``; raises NotFound if it is not theirs or is gone."""
    record = db.session.get(AccessToken, token_id)
    if record is None or record.user_id != user.id or record.revoked_at is not None:
        raise NotFound(_("There is no such token; it may have been revoked already."))
    record.revoked_at = utcnow()
    db.session.commit()
    return record


def revoke_all(user: User, *, commit: bool = True) -> None:
    """End every token of ``user`` (when the account is disabled)."""
    db.session.execute(
        update(AccessToken)
        .where(AccessToken.user_id == user.id, AccessToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    if commit:
        db.session.commit()
