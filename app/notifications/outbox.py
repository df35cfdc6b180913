"""The outbox's operations: claiming mails to send, recording each attempt, reading notices.

Several workers (on several hosts) may send from one database: a worker claims a batch of due
mails by writing its claim token on them (``app.claims``: workers pass each other by), and
only rows whose claim it still holds are marked sent. Every operation here commits.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import and_, bindparam, func, or_, select, update

from app import claims
from app.auth.models import User
from app.clock import utcnow
from app.errors import NotFound
from app.extensions import db
from app.notifications.models import MAIL_FAILED, MAIL_QUEUED, MAIL_SENT, Notification


def _due(now: datetime):
    return and_(
        Notification.mail_status == MAIL_QUEUED,
        Notification.mail_next_at <= now,
        or_(Notification.mail_claimed_until.is_(None), Notification.mail_claimed_until < now),
    )


def claim(limit: int) -> tuple[str, list[Notification]]:
    """Claim up to ``limit`` due mails for this worker; returns its claim token and the rows."""
    now = utcnow()
    token = secrets.token_hex(16)
    lease = timedelta(seconds=current_app.config["NOTIFICATIONS_CLAIM_SECONDS"])
    ids = claims.claim_due(
        Notification.id,
        _due(now),
        order_by=(Notification.mail_next_at, Notification.id),
        limit=limit,
        take={"mail_claim": token, "mail_claimed_until": now + lease},
    )
    if not ids:
        db.session.rollback()
        return token, []
    db.session.commit()
    rows = db.session.scalars(
        select(Notification).where(Notification.mail_claim == token).order_by(Notification.id)
    )
    return token, list(rows)


def mark_sent(notification_id: int, token: str) -> bool:
    """Record a delivered mail; False if this worker's claim had lapsed meanwhile."""
    done = db.session.execute(
        update(Notification)
        .where(Notification.id == notification_id, Notification.mail_claim == token)
        .values(
            mail_status=MAIL_SENT,
            mail_sent_at=utcnow(),
            mail_claim=None,
            mail_claimed_until=None,
            mail_attempts=Notification.mail_attempts + 1,
            mail_error=None,
        )
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    return bool(done)


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after ``attempts`` failed attempts: doubling, up to the maximum."""
    config = current_app.config
    seconds = config["NOTIFICATIONS_RETRY_SECONDS"] * 2 ** min(max(attempts - 1, 0), 16)
    return timedelta(seconds=min(seconds, config["NOTIFICATIONS_RETRY_MAX_SECONDS"]))


def mark_attempt_failed(
    notification: Notification, token: str, error: str, for_good: bool = False
) -> str:
    """Record a failed attempt: queued again after a back-off, or failed for good after the
    last allowed attempt (or at once, ``for_good``). Returns the mail status now."""
    attempts = (notification.mail_attempts or 0) + 1
    final = for_good or attempts >= current_app.config["NOTIFICATIONS_MAX_ATTEMPTS"]
    status = MAIL_FAILED if final else MAIL_QUEUED
    db.session.execute(
        update(Notification)
        .where(Notification.id == notification.id, Notification.mail_claim == token)
        .values(
            mail_status=status,
            mail_attempts=attempts,
            mail_error=error,
            mail_claim=None,
            mail_claimed_until=None,
            mail_next_at=None if final else utcnow() + retry_delay(attempts),
        )
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    return status


def requeue(notification_id: int) -> None:
    """Send a failed mail again from the next pass (operators, once the server is fixed).

    Raises NotFound when there is no such failed mail.
    """
    notification = db.session.get(Notification, notification_id)
    if notification is None or notification.mail_status != MAIL_FAILED:
        raise NotFound(_("There is no such undelivered mail; it may have been sent meanwhile."))
    notification.mail_status, notification.mail_attempts = MAIL_QUEUED, 0
    notification.mail_next_at = utcnow()
    db.session.commit()


def undelivered(limit: int = 200) -> list[Notification]:
    """Mails that failed for good, and queued ones that have failed at least once, newest
    first: what operators look at when the mail server misbehaves."""
    return list(
        db.session.scalars(
            select(Notification)
            .where(
                or_(
                    Notification.mail_status == MAIL_FAILED,
                    and_(Notification.mail_status == MAIL_QUEUED, Notification.mail_attempts > 0),
                )
            )
            .order_by(Notification.created_at.desc(), Notification.id.desc())
            .limit(limit)
        )
    )


def unread_count(user: User) -> int:
    return db.session.scalar(unread_count_of(user.id))


def unread_count_of(user_id):
    """The query counting the unread notifications of ``user_id`` (a value or a column)."""
    return (
        select(func.count())
        .select_from(Notification)
        .where(Notification.user_id == user_id, Notification.read_at.is_(None))
    )


def notifications_of(user: User, limit: int = 100, unread: bool = False) -> list[Notification]:
    """``user``'s notifications (``unread``: only those not yet read), newest first."""
    query = select(Notification).where(Notification.user_id == user.id)
    if unread:
        query = query.where(Notification.read_at.is_(None))
    order = (Notification.created_at.desc(), Notification.id.desc())
    return list(db.session.scalars(query.order_by(*order).limit(limit)))


# The navigation bar's menu lists the latest unread notices on every page of someone who has
# any: their words need only these, read as plain rows (no Notification objects to build).
_TABLE = Notification.__table__
_LATEST_UNREAD = (
    select(_TABLE.c.id, _TABLE.c.created_at, _TABLE.c.kind, _TABLE.c.details)
    .where(_TABLE.c.user_id == bindparam("user_id"), _TABLE.c.read_at.is_(None))
    .order_by(_TABLE.c.created_at.desc(), _TABLE.c.id.desc())
    .limit(bindparam("limit"))
)


def latest_unread(user: User, limit: int):
    """``user``'s newest unread notifications, at most ``limit``, as rows of their ``id``,
    ``created_at``, ``kind`` and ``details`` (the order of ``notifications_of``)."""
    return db.session.execute(_LATEST_UNREAD, {"user_id": user.id, "limit": limit}).all()


def mark_read(user: User, notification_id: int) -> None:
    """Mark one of ``user``'s notifications read. Raises NotFound if it is not theirs."""
    notification = db.session.get(Notification, notification_id)
    if notification is None or notification.user_id != user.id:
        raise NotFound(_("There is no such notification among yours."))
    notification.read_at = notification.read_at or utcnow()
    db.session.commit()


def mark_all_read(user: User) -> int:
    """Mark every unread notification of ``user`` read; returns how many were."""
    count = db.session.execute(
        update(Notification)
        .where(Notification.user_id == user.id, Notification.read_at.is_(None))
        .values(read_at=utcnow())
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    return count
