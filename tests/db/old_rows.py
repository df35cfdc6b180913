"""Rows written as a table stood at an earlier revision: a migration's test upgrades to the
revision before it, writes rows there, and upgrades on. The models describe today's tables,
so a row written through them names columns a later revision adds; these helpers write only
the columns the table has then."""

from __future__ import annotations

from types import SimpleNamespace

import sqlalchemy as sa

from app.clock import utcnow
from app.extensions import db


def local_account_as_then(username: str) -> SimpleNamespace:
    """A local account (without a password) in the users table as it stands now in the
    database; what a migration's test needs of it is its id."""
    connection = db.session.connection()
    users = sa.Table("users", sa.MetaData(), autoload_with=connection)
    wanted = {
        "provider": "local",
        "subject": username,
        "username": username,
        "display_name": "",
        "email": "",
        "groups": [],
        "group_roles": [],
        "password_hash": None,
        "active": True,
        "created_at": utcnow(),
        "session_version": 1,
    }
    values = {name: value for name, value in wanted.items() if name in users.c}
    user_id = connection.execute(users.insert().values(**values)).inserted_primary_key[0]
    db.session.commit()
    return SimpleNamespace(id=user_id, username=username)


def empty_database_url(database: str, tmp_path, request) -> str:
    """An empty database of the kind a migration's test is run on ("sqlite" or "postgresql"),
    for it to upgrade from nothing."""
    if database == "sqlite":
        return f"sqlite:///{tmp_path / 'portal.db'}"
    return request.getfixturevalue("empty_postgres_url")
