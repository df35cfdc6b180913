"""Locking one limits row (``quota_limits``) for the rest of the transaction.

Every reservation against a user or a group pool, and every operator's change to limits,
first locks the row of what it touches; the row is created, empty, when there is none yet, so
that the first launch and the first edit are serialised like any other.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert

from app.clock import utcnow
from app.extensions import db
from app.locks import start_writing
from app.quotas.models import QuotaLimit


def lock_limit_row(scope: str, subject: str) -> None:
    """Hold the limits row (``scope``, ``subject``) until commit, creating it if missing.
    On SQLite the whole database is held instead (see ``app.locks.start_writing``)."""
    if start_writing():
        return
    anchor = select(QuotaLimit.id).where(QuotaLimit.scope == scope, QuotaLimit.subject == subject)
    if db.session.connection().dialect.name == "postgresql":
        # Usually one round trip: a row that existed is locked FOR UPDATE by the outer select.
        # A row the same statement inserts is invisible to that select, and so is one that a
        # concurrent transaction inserted first (this insert waited for it, then did nothing):
        # then a second select, with a fresh snapshot, finds the row and locks it.
        created = (
            pg_insert(QuotaLimit)
            .values(scope=scope, subject=subject, limits={}, updated_at=utcnow())
            .on_conflict_do_nothing(index_elements=["scope", "subject"])
            .cte("created")
        )
        if not db.session.execute(anchor.add_cte(created).with_for_update()).all():
            db.session.execute(anchor.with_for_update()).all()
        return
    if db.session.scalar(anchor) is None:
        db.session.add(QuotaLimit(scope=scope, subject=subject, limits={}))
        db.session.flush()
    db.session.scalar(anchor.with_for_update())
