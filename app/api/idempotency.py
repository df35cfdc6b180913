"""``Idempotency-Key`` on POST: the same key from the same person within a day gets the first
answer again, and the action behind it runs once.

The key is claimed first, by inserting its row and committing, before anything is done: a
unique index on (user, key) lets exactly one request win, whichever process it runs in. The
others find the row and either replay the stored answer or, while the first is still under
way, are told so (409 with ``Retry-After``) and try again. Answers that say "try again later"
(429, an identical launch still being confirmed, 5xx, a crash) release the key, so that the
retry can act. A claim that no host settles within ``ABANDONED_AFTER`` was left by a host that
died while answering: the next request with the key claims it again instead of being told
"under way" for the rest of the day.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from app.api.problems import Problem
from app.clock import utcnow
from app.extensions import db

HEADER = "Idempotency-Key"
KEY_MAX = 200
# Seconds a client is asked to wait while the first request with its key is under way.
IN_PROGRESS_RETRY_SECONDS = 1
# A request is answered within a minute or so (gunicorn's worker timeout is 30 s, a launch's
# call to a backend at most that backend's own timeout, 5 + 30 s by default); a claim five
# minutes old and still unsettled belongs to a host that is gone.
ABANDONED_AFTER = timedelta(minutes=5)


class IdempotentRequest(db.Model):
    """One Idempotency-Key of one user: what was asked, and the answer once there is one."""

    __tablename__ = "api_idempotency_keys"
    __table_args__ = (UniqueConstraint("user_id", "key", name="uq_api_idempotency_user_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(KEY_MAX))
    # SHA-256 of method, path and body: the same key with another request is an error.
    fingerprint: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: under way
    body: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    headers: Mapped[dict | None] = mapped_column(JSON, nullable=True)


@dataclass
class Replay:
    status: int
    body: dict
    headers: dict


def fingerprint(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(b"\0".join([method.encode(), path.encode(), body])).hexdigest()


def _window() -> timedelta:
    return timedelta(hours=current_app.config["API_IDEMPOTENCY_HOURS"])


def claim(user_id: int, key: str, print_: str) -> IdempotentRequest | Replay:
    """Claim ``key`` for a new request (the row, committed) or return the stored answer.

    Raises Problem "idempotency-key-in-use" while the first request is still under way, and
    "idempotency-key-reused" when the key came with a different request.
    """
    if not key or len(key) > KEY_MAX or not key.isprintable():
        raise Problem(
            "bad-request",
            _("An Idempotency-Key is 1 to %(count)d printable characters.", count=KEY_MAX),
        )
    for _attempt in range(2):
        existing = db.session.scalar(
            select(IdempotentRequest).where(
                IdempotentRequest.user_id == user_id, IdempotentRequest.key == key
            )
        )
        if existing is not None and existing.created_at < utcnow() - _window():
            # Older than the window: the key is free again.
            db.session.delete(existing)
            db.session.commit()
            existing = None
        if existing is not None and _abandoned(existing) and _reclaimed(existing, print_):
            return existing
        if existing is not None:
            return _answer_of(existing, print_)
        record = IdempotentRequest(user_id=user_id, key=key, fingerprint=print_)
        db.session.add(record)
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()  # another process claimed it first: read its row
            continue
        return record
    raise Problem(
        "idempotency-key-in-use",
        _("A request with this Idempotency-Key is under way; try again in a moment."),
        headers={"Retry-After": str(IN_PROGRESS_RETRY_SECONDS)},
    )


def _abandoned(existing: IdempotentRequest) -> bool:
    return existing.status is None and existing.created_at <= utcnow() - ABANDONED_AFTER


def _reclaimed(existing: IdempotentRequest, print_: str) -> bool:
    """Take over an abandoned claim of the same request; True for the one process that does
    (the row must still be the one read: unsettled, claimed at the same moment)."""
    if existing.fingerprint != print_:
        return False
    now = utcnow()
    taken = db.session.execute(
        IdempotentRequest.__table__.update()
        .where(
            IdempotentRequest.id == existing.id,
            IdempotentRequest.status.is_(None),
            IdempotentRequest.created_at == existing.created_at,
        )
        .values(created_at=now)
    ).rowcount
    db.session.commit()
    return taken == 1


def _answer_of(existing: IdempotentRequest, print_: str) -> Replay:
    if existing.fingerprint != print_:
        raise Problem(
            "idempotency-key-reused",
            _(
                "This Idempotency-Key was already used for a different request; use a new key "
                "for a new request. Nothing was done."
            ),
        )
    if existing.status is None:
        raise Problem(
            "idempotency-key-in-use",
            _("A request with this Idempotency-Key is under way; try again in a moment."),
            headers={"Retry-After": str(IN_PROGRESS_RETRY_SECONDS)},
        )
    return Replay(existing.status, existing.body or {}, existing.headers or {})


def settle(record_id: int, status: int, body: dict, headers: dict, *, final: bool) -> None:
    """Store the answer to replay, or release the key when it is not ``final`` (it says "try
    again later": a rate limit, an identical launch still being confirmed, a failure)."""
    db.session.rollback()  # whatever the request left uncommitted is not part of the answer
    if not final:
        release(record_id)
        return
    db.session.execute(
        IdempotentRequest.__table__.update()
        .where(IdempotentRequest.id == record_id)
        .values(status=status, body=body, headers=headers)
    )
    db.session.commit()


def release(record_id: int) -> None:
    """Free a claimed key after a failure, so that a retry acts."""
    db.session.rollback()
    db.session.execute(delete(IdempotentRequest).where(IdempotentRequest.id == record_id))
    db.session.commit()
