"""Work that several portal hosts sharing one database must not do at the same moment.

Setting up a site runs the same commands on every host (``make setup``: create the first
accounts, import the catalogue); run side by side they would each find nothing and each
insert, and all but one would fail on a unique key halfway through.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text

from app.extensions import db


def _key(name: str) -> int:
    """A stable signed 64-bit number for ``name`` (PostgreSQL's advisory lock keys)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextmanager
def one_host_at_a_time(name: str) -> Iterator[None]:
    """Hold the database-wide lock ``name`` for the block: a host reaching it while another
    holds it waits, then finds that host's work done.

    On PostgreSQL this is an advisory lock held on a connection of its own (so that the
    block's commits do not release it). Advisory locks are database-wide, so the key names the
    schema too: portals kept in separate schemas of one database never wait for each other.
    SQLite is one file on one host, whose writers are already serialised by its own write
    lock: nothing to do there.
    """
    if db.engine.dialect.name != "postgresql":
        yield
        return
    with db.engine.connect() as connection:
        schema = connection.execute(text("SELECT current_schema()")).scalar()
        key = _key(f"{schema}/{name}")
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()


def start_writing() -> bool:
    """On SQLite, begin the write transaction now (``BEGIN IMMEDIATE``) and return True: it
    admits one writer at a time, so what is read next cannot go stale before this transaction
    writes. pysqlite would otherwise begin it only at the first write, after those reads.
    Elsewhere, do nothing and return False."""
    connection = db.session.connection()
    if connection.dialect.name != "sqlite":
        return False
    if not connection.connection.dbapi_connection.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    return True


def lock_rows(statement) -> None:
    """Lock the rows ``statement`` selects until the transaction ends (``FOR UPDATE``; on
    SQLite the whole database, see ``start_writing``): whoever reads them next waits."""
    if not start_writing():
        db.session.execute(statement.with_for_update()).all()
