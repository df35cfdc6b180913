"""Claiming due rows across hosts: one rule for every worker duty that takes rows to act on
(mails to send, leases to move on, identities to list, deployments to poll, capacity sources
to read).

Several workers, in one process, on one host or on several sharing the database, take the
rows that are due without two taking the same row and without waiting for each other. On
PostgreSQL the due rows are selected ``FOR UPDATE SKIP LOCKED``: rows another worker is
claiming at that moment are passed by, not waited for. SQLite is one file with one writer at a
time: the claim first takes its write lock (``BEGIN IMMEDIATE``, ``app.locks.start_writing``),
so that nobody writes between the reading of the due rows and their marking.

Claimed rows are marked in the same transaction (``take``: a claim's end, a claim token, the
next due time), so that they are no longer due for anyone once it commits; a claim that
marks nothing holds its rows (on SQLite the database) until the caller's transaction ends,
for work done inside it. The caller commits: only then do other workers see the claim.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select, update

from app.extensions import db
from app.locks import start_writing


def claim_due(
    key,
    *due,
    order_by: Iterable = (),
    limit: int | None = None,
    take: Mapping[str, Any] | None = None,
) -> list:
    """Claim the rows of ``key``'s table that ``due`` selects (SQL conditions), at most
    ``limit`` of them in ``order_by`` order, and set ``take``'s columns on them; returns their
    ``key`` values (none: an empty list). Begins the transaction; the caller commits it."""
    query = select(key).where(*due).order_by(*order_by)
    if limit is not None:
        query = query.limit(limit)
    if not start_writing():
        query = query.with_for_update(skip_locked=True)
    keys = list(db.session.scalars(query))
    if keys and take:
        db.session.execute(
            update(key.class_)
            .where(key.in_(keys))
            .values(**take)
            .execution_options(synchronize_session=False)
        )
    return keys
