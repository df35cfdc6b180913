"""On PostgreSQL, reading needs no transaction: a connection opens one at its first write.

Most requests only read (every page, every poll), and a transaction around reads costs two
round trips that carry nothing: psycopg sends BEGIN before the first statement and the session
sends ROLLBACK when the request ends. On a busy host those were a third of a page's trips.

So a connection from the pool runs in autocommit until a statement that is not a plain read
reaches it; just before that statement is sent, it leaves autocommit, so psycopg begins a
transaction that holds the statement and everything after it until the session commits or
rolls back, as before. The connection returns to autocommit when it goes back to the pool.

Why reads lose nothing: the portal runs at PostgreSQL's default isolation, READ COMMITTED, where
every statement sees the data committed when it starts, inside a transaction or not. What a
transaction adds for reads is locks, and a read that locks (``FOR UPDATE``, ``FOR SHARE``) is
not a plain read: it opens the transaction. So is anything that is not a SELECT compiled from
a ``select()`` (text, DDL, SAVEPOINT, CTEs, INSERT, UPDATE, DELETE): only what is known to read
and nothing else stays outside.

SQLite is left as it is: its transactions cost no round trip.
"""

from __future__ import annotations

import re

from flask import Flask
from psycopg import IsolationLevel
from psycopg.pq import TransactionStatus
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.sql import Select

# Marks the pooled connections this module runs (in the pool's record of each).
_READS_OUTSIDE = "reads_outside_transactions"
# A lock taken by a read: it must last until the transaction ends.
_LOCKING = re.compile(r"\bFOR\s+(?:NO\s+KEY\s+)?(?:UPDATE|SHARE|KEY\s+SHARE)\b", re.IGNORECASE)


def listen(app: Flask) -> None:
    """Let the app's PostgreSQL engines read outside transactions."""
    from app.extensions import db

    with app.app_context():
        engines = list(db.engines.values())
    for engine in engines:
        if engine.dialect.name == "postgresql":
            read_without_transactions(engine)


def read_without_transactions(engine: Engine) -> None:
    """Run ``engine``'s connections in autocommit until their first statement that is not a
    plain read (see the module's docstring). Connections working at another isolation level
    than READ COMMITTED (by the engine's settings or the server's default) are left alone."""
    if getattr(engine.dialect, "isolation_level", None) not in (None, "READ COMMITTED"):
        return
    if event.contains(engine, "before_cursor_execute", _begin_before_writing):
        return
    event.listen(engine, "connect", _start_in_autocommit)
    event.listen(engine, "checkin", _back_to_autocommit)
    event.listen(engine, "before_cursor_execute", _begin_before_writing)


def is_plain_read(statement: str, context) -> bool:
    """Whether ``statement`` only reads and takes no lock: a SELECT compiled from a
    ``select()`` construct."""
    compiled = getattr(context, "compiled", None)
    if compiled is None or not isinstance(compiled.statement, Select):
        return False
    if compiled.statement._for_update_arg is not None:
        return False
    return statement.lstrip()[:6].upper() == "SELECT" and not _LOCKING.search(statement)


def _start_in_autocommit(dbapi_connection, record) -> None:
    if not _idle(dbapi_connection) or dbapi_connection.isolation_level not in (
        None,
        IsolationLevel.READ_COMMITTED,
    ):
        return
    dbapi_connection.autocommit = True
    server = dbapi_connection.execute("SHOW default_transaction_isolation").fetchone()[0]
    if server == "read committed" or dbapi_connection.isolation_level is not None:
        record.info[_READS_OUTSIDE] = True
    else:
        dbapi_connection.autocommit = False


def _back_to_autocommit(dbapi_connection, record) -> None:
    # A connection the pool discarded is None here. Only an idle one may change; one still in
    # a transaction (the pool resets every connection it takes back, so none should be)
    # keeps beginning them, as without this module.
    if (
        dbapi_connection is not None
        and record.info.get(_READS_OUTSIDE)
        and not dbapi_connection.autocommit
        and _idle(dbapi_connection)
    ):
        dbapi_connection.autocommit = True


def _idle(dbapi_connection) -> bool:
    return dbapi_connection.info.transaction_status == TransactionStatus.IDLE


def _begin_before_writing(connection, _cursor, statement, _parameters, context, _many) -> None:
    pooled = connection.connection
    if (
        pooled.dbapi_connection.autocommit
        and pooled.info.get(_READS_OUTSIDE)
        # Autocommit asked for by the caller (VACUUM, CREATE DATABASE) stays.
        and connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT"
        and not is_plain_read(statement, context)
    ):
        # Idle, being in autocommit: psycopg begins the transaction with this statement.
        pooled.dbapi_connection.autocommit = False
