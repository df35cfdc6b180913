"""Where the orchestrator emulator keeps its deployments: SQLite, in memory or in a file.

Tests use ``":memory:"`` (one store per emulator, gone with it). The demo mode uses a file in
the instance folder, because every gunicorn worker runs its own in-process emulator and they
must all see the same deployments; SQLite's file locking keeps their writes apart.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS emulated_deployments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid TEXT UNIQUE NOT NULL,
    subject TEXT NOT NULL,
    issuer TEXT NOT NULL,
    user_group TEXT,
    template TEXT NOT NULL,
    record TEXT NOT NULL,
    polls INTEGER NOT NULL DEFAULT 0,
    changed_at REAL NOT NULL
)
"""


@dataclass
class Stored:
    """One emulated deployment: its JSON (without links), template, and progress counters."""

    uuid: str
    subject: str
    issuer: str
    template: str
    record: dict
    polls: int
    changed_at: float


class EmulatorStore:
    """The emulator's deployments. Safe to share between threads (one lock, one connection)."""

    def __init__(self, path: str = ":memory:"):
        self._lock = threading.Lock()
        # One connection used under the lock from whichever thread serves the request.
        self._conn = sqlite3.connect(path, timeout=10, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        with self._lock, self._conn:
            self._conn.execute(_SCHEMA)

    def add(self, record: dict, template: str, subject: str, issuer: str) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO emulated_deployments"
                " (uuid, subject, issuer, user_group, template, record, changed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record["uuid"],
                    subject,
                    issuer,
                    record.get("userGroup"),
                    template,
                    json.dumps(record),
                    time.time(),
                ),
            )

    def get(self, uuid: str) -> Stored | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM emulated_deployments WHERE uuid = ?", (uuid,)
            ).fetchone()
        return _stored(row) if row else None

    def save(self, stored: Stored) -> None:
        """Write back ``record``, ``polls`` and ``changed_at`` of ``stored``."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE emulated_deployments SET record = ?, polls = ?, changed_at = ?"
                " WHERE uuid = ?",
                (json.dumps(stored.record), stored.polls, stored.changed_at, stored.uuid),
            )

    def remove(self, uuid: str) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM emulated_deployments WHERE uuid = ?", (uuid,))

    def owned(self, subject: str, issuer: str, user_group: str | None) -> list[Stored]:
        """An owner's deployments (of ``user_group`` when given), oldest first."""
        where = "subject = ? AND issuer = ?"
        args: list = [subject, issuer]
        if user_group is not None:
            where += " AND user_group = ?"
            args.append(user_group)
        # ``where`` is built from constants above; the values travel as parameters.
        sql = f"SELECT * FROM emulated_deployments WHERE {where} ORDER BY seq"  # noqa: S608
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [_stored(row) for row in rows]

    def every(self) -> list[Stored]:
        """Every deployment, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT * FROM emulated_deployments ORDER BY seq").fetchall()
        return [_stored(row) for row in rows]

    def in_progress(self) -> list[Stored]:
        """The deployments whose status is one of the IN_PROGRESS ones."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM emulated_deployments"
                " WHERE json_extract(record, '$.status') LIKE '%\\_IN\\_PROGRESS' ESCAPE '\\'"
            ).fetchall()
        return [_stored(row) for row in rows]

    def clear(self) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM emulated_deployments")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _stored(row: sqlite3.Row) -> Stored:
    return Stored(
        uuid=row["uuid"],
        subject=row["subject"],
        issuer=row["issuer"],
        template=row["template"],
        record=json.loads(row["record"]),
        polls=row["polls"],
        changed_at=row["changed_at"],
    )
