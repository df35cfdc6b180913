"""One delete at a time per IM server, across threads, processes and hosts.

IM 2.0 loses deletes that arrive together: every one is answered 200, yet some
infrastructures stay listed and ``configured`` afterwards. Deletes are therefore serialised
per IM server (keyed by its URL) for the whole portal: on PostgreSQL with an advisory lock
(``app.locks``), which every host sharing the database sees; on SQLite, one file on one host,
with an exclusive ``flock`` on a file in the instance folder.
"""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from app.extensions import db
from app.locks import one_host_at_a_time

DeleteLock = Callable[[], AbstractContextManager]


def lock_name(im_url: str) -> str:
    return "im-deletes " + im_url.rstrip("/")


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` for the block (waiting for it first). Each
    holder opens the file itself, so threads of one process exclude each other too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def lock_file(instance_path: str, im_url: str) -> Path:
    digest = hashlib.sha256(lock_name(im_url).encode()).hexdigest()[:16]
    return Path(instance_path) / "locks" / f"im-deletes-{digest}.lock"


def serialised(im_url: str, instance_path: str) -> DeleteLock:
    """The lock that serialises deletes at ``im_url`` for the current app's database: call it
    for a context manager. Needs an app context when called."""

    def hold() -> AbstractContextManager:
        if db.engine.dialect.name == "postgresql":
            return one_host_at_a_time(lock_name(im_url))
        return file_lock(lock_file(instance_path, im_url))

    return hold


def unserialised() -> AbstractContextManager:
    """No lock at all: what the benchmark compares against."""
    return nullcontext()
