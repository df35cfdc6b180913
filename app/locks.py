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
    block's commits do not release it). SQLite is one file on one host, whose writers are
    already serialised by its own write lock: nothing to do there.
    """
    if db.engine.dialect.name != "postgresql":
        yield
        return
    with db.engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _key(name)})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _key(name)})
            connection.commit()
