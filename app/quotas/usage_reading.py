"""The small kit the usage readers share (``usage_open``, ``usage_totals``, ``usage_site``,
``budget_usage``): statements built once per shape and run on the session's connection, and
owners' conditions and values as bound parameters."""

from __future__ import annotations

from sqlalchemy import bindparam, or_

from app.extensions import db


def owner_where(table, user_id: int | None, group_name: str | None, either: bool = False) -> list:
    """The owner's condition, with the values as bound parameters named ``user_id`` and
    ``group_name`` (``either``: one or the other): built once and kept (``kept``)."""
    where = []
    if user_id is not None:
        where.append(table.user_id == bindparam("user_id"))
    if group_name is not None:
        where.append(table.group_name == bindparam("group_name"))
    return [or_(*where)] if either and len(where) > 1 else where


def owner_values(user_id: int | None, group_name: str | None) -> dict:
    """The values of ``owner_where``'s parameters."""
    values = {}
    if user_id is not None:
        values["user_id"] = user_id
    if group_name is not None:
        values["group_name"] = group_name
    return values


def owner_of(row, by: str | None):
    """Whose ``row`` is, as ``by`` tells owners apart: its user id ("user"), its group
    ("group"), or one for all (None)."""
    if by == "user":
        return row.user_id
    if by == "group":
        return row.group_name
    return None


# Statements built once per shape and kept: building one costs more CPU than running it on a
# small table (budgets are read at every cost box), and the values go in as parameters.
_STATEMENTS: dict[tuple, object] = {}


def kept(key: tuple, build):
    """The statement of shape ``key``, built by ``build`` the first time it is asked."""
    found = _STATEMENTS.get(key)
    if found is None:
        found = _STATEMENTS[key] = build()
    return found


def run(statement, values: dict):
    """Run a kept statement on the session's connection (in its transaction): these read
    tables, not objects, so the ORM's handling of a statement is not needed."""
    return db.session.connection().execute(statement, values)


def read(statement, values: dict):
    """Run a statement that reads tables: on the session's connection, as ``run``, unless the
    session holds changes not flushed yet, which the session's own execute flushes first
    (autoflush), so that what this transaction changed is read, as the ORM would read it."""
    session = db.session()
    if session.new or session.dirty or session.deleted:
        return session.execute(statement, values)
    return session.connection().execute(statement, values)
