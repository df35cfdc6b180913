"""An overall deadline for one conversation over sockets that are not HTTP: a login at the
institute directory (binds and searches), one mail's SMTP conversation.

A socket timeout bounds each read, not the conversation: a server that sends a byte now and
then never trips it and holds a login or the mail worker for as long as it likes. Inside
``within(seconds)``, the sockets the conversation opens are registered (``watch``); when the
deadline passes, a timer shuts each of them down under whatever read is waiting, and the caller
sees its library's own "connection closed" error, then asks ``expired`` to put it in words.
(HTTP calls have their own, with a size cap: ``app.remote``.)
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

SocketOf = Callable[[], "socket.socket | None"]

_current = threading.local()


class Deadline:
    """The deadline of one conversation and the sockets it ends when it passes."""

    def __init__(self, seconds: float):
        self.seconds = float(seconds)
        self.expired = False
        self._sockets: list[SocketOf] = []
        self._lock = threading.Lock()
        self._over = False
        self._timer = threading.Timer(self.seconds, self._fire)
        self._timer.daemon = True

    def watch(self, socket_of: SocketOf) -> None:
        """End the socket ``socket_of()`` gives (read when the deadline passes, so that a
        socket upgraded to TLS meanwhile is the one ended) at the deadline; at once if it
        has passed already."""
        with self._lock:
            self._sockets.append(socket_of)
            if self.expired:
                _shut(socket_of)

    def _fire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.expired = True
            for socket_of in self._sockets:
                _shut(socket_of)

    def _stop(self) -> None:
        with self._lock:
            self._over = True
        self._timer.cancel()


def _shut(socket_of: SocketOf) -> None:
    sock = socket_of()
    if sock is None:
        return
    # The plain socket's shutdown, also under TLS (SSLSocket.shutdown would unwrap the TLS
    # object under the other thread's read); a socket already closed has nothing to end.
    with suppress(OSError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


@contextmanager
def within(seconds: float) -> Iterator[Deadline]:
    """A deadline of ``seconds`` for the conversation held inside the block, in this thread."""
    deadline = Deadline(seconds)
    previous = getattr(_current, "deadline", None)
    _current.deadline = deadline
    deadline._timer.start()
    try:
        yield deadline
    finally:
        deadline._stop()
        _current.deadline = previous


def watch(socket_of: SocketOf) -> None:
    """Register a socket with the current thread's deadline, if there is one."""
    deadline = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline.watch(socket_of)
