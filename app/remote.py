"""A remote read with an overall deadline and a size cap: the one way the portal reads an
answer from another system (the orchestrator, IM, capacity sources, identity providers).

``requests``' read timeout is per socket read, not for the whole answer: a server that sends
its headers and then one byte a second never trips it and holds the caller forever. So every
call goes through ``bounded``: the answer is streamed, and a watchdog ends the call when its
deadline passes, whatever it is waiting for (the connection, the headers or the body), by
shutting the connection's socket down under the read; the body is counted as it comes and
given up past ``max_bytes`` (counted after decompression, so a small gzip bomb is caught too).
The deadline is the caller's (connect, read) timeout added up (``deadline_of``): an answer
that used to arrive in time still does, and one that dribbles costs no more than one that
hangs.

The watchdog reaches the socket only through sessions made by ``session()`` (their pools make
connections that tell the watchdog which socket they use); through another session (a
test's or the demo's in-process transport) the deadline is still checked between chunks.
Failures are ``requests`` exceptions, so callers' existing handlers keep working:
``AnswerTooSlow`` is a ``requests.Timeout``, ``AnswerTooLarge`` a ``requests.RequestException``;
each knows its sentence for people (``describe``).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import requests
from flask_babel import gettext as _
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ReadTimeoutError

# The largest answer read from another system unless its caller says otherwise: far above
# any page of deployments, template or quota listing, far below what would hurt a worker.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
# Bytes read at a time; the deadline is checked between chunks too.
_CHUNK = 64 * 1024

Timeout = float | tuple[float, float] | list[float]


def deadline_of(timeout: Timeout) -> float:
    """The seconds a whole answer may take under a (connect, read) ``timeout`` or one number
    used for both (the *_TIMEOUT settings): both added up."""
    if isinstance(timeout, list | tuple):
        connect, read = timeout
        return float(connect) + float(read)
    return 2 * float(timeout)


class AnswerTooSlow(requests.Timeout):
    """The answer did not arrive in full within ``seconds``."""

    def __init__(self, seconds: float):
        super().__init__(f"no complete answer within {seconds:g} s")
        self.seconds = seconds

    def describe(self, service: Any) -> str:
        seconds = format(self.seconds, "g")
        return _(
            "%(service)s did not answer in full within %(seconds)s s.",
            service=service,
            seconds=seconds,
        )


class AnswerTooLarge(requests.RequestException):
    """The answer was larger than ``max_bytes``; it was not read further."""

    def __init__(self, max_bytes: int):
        super().__init__(f"answer larger than {max_bytes} bytes")
        self.max_bytes = max_bytes

    def describe(self, service: Any) -> str:
        return _(
            "%(service)s sent an answer larger than %(size)s; it was not read.",
            service=service,
            size=_size(self.max_bytes),
        )


def _size(count: int) -> str:
    if count >= 1024 * 1024 and count % (1024 * 1024) == 0:
        return _("%(count)d MB", count=count // (1024 * 1024))
    if count >= 1024 and count % 1024 == 0:
        return _("%(count)d KB", count=count // 1024)
    return _("%(count)d bytes", count=count)


class _Watch:
    """Ends one call at its deadline by shutting down the socket it is reading from."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._connection: HTTPConnection | None = None
        self._lock = threading.Lock()
        self._over = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def attach(self, connection: HTTPConnection) -> None:
        with self._lock:
            self._connection = connection
            if self.expired:
                _shut(connection)

    def check(self) -> None:
        """Raises AnswerTooSlow once the deadline has passed."""
        if self.expired or time.monotonic() >= self.ends:
            self.expired = True
            raise AnswerTooSlow(self.seconds)

    def _fire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.expired = True
            if self._connection is not None:
                _shut(self._connection)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        with self._lock:
            self._over = True
        self._timer.cancel()


def _shut(connection: HTTPConnection) -> None:
    sock = getattr(connection, "sock", None)
    if sock is None:
        return
    # The plain socket's shutdown, also under TLS: SSLSocket.shutdown would unwrap the TLS
    # object under the other thread's read. Already closed: nothing is read from it any more.
    with suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


_current = threading.local()


@contextmanager
def _watching(seconds: float) -> Iterator[_Watch]:
    watch = _Watch(seconds)
    previous = getattr(_current, "watch", None)
    _current.watch = watch
    watch.start()
    try:
        yield watch
    finally:
        watch.stop()
        _current.watch = previous


class _Watched:
    """A connection that tells the current call's watchdog it carries the call."""

    def request(self, *args, **kwargs):
        _attach(self)
        return super().request(*args, **kwargs)

    def connect(self):
        # Again once connected: a deadline that passed while connecting finds a socket now.
        super().connect()
        _attach(self)


def _attach(connection) -> None:
    watch = getattr(_current, "watch", None)
    if watch is not None:
        watch.attach(connection)


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


_POOLS = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}


class WatchedAdapter(HTTPAdapter):
    """requests' own adapter whose connections the watchdog can end."""

    def init_poolmanager(self, *args, **kwargs) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any):
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


def watch_session(session: requests.Session) -> requests.Session:
    """``session`` with the watched adapter for http:// and https:// (returned for chaining)."""
    session.mount("http://", WatchedAdapter())
    session.mount("https://", WatchedAdapter())
    return session


def session() -> requests.Session:
    """A new requests session whose calls ``bounded`` can end at their deadline."""
    return watch_session(requests.Session())


def bounded(
    send: Callable[..., requests.Response], *, deadline: float, max_bytes: int = DEFAULT_MAX_BYTES
) -> requests.Response:
    """The answer of ``send(stream=True)`` read in full within ``deadline`` seconds (connect,
    headers and body) and at most ``max_bytes`` long; its content is loaded, its connection
    released. Raises AnswerTooSlow, AnswerTooLarge, or what ``send`` raises."""
    with _watching(deadline) as watch:
        response = None
        try:
            response = send(stream=True)
            watch.check()
            _refuse_announced(response, max_bytes)
            response._content = _body(response, watch, max_bytes)
            response._content_consumed = True
        except (requests.RequestException, OSError, ValueError) as error:
            if response is not None:
                response.close()
            # A socket timeout is the server's silence, whenever it is noticed; the watchdog's
            # shutdown shows as a dropped connection.
            if isinstance(error, AnswerTooSlow | AnswerTooLarge | requests.Timeout):
                raise
            if _read_timed_out(error):
                raise requests.ReadTimeout(*error.args, response=response) from None
            if watch.expired:
                raise AnswerTooSlow(deadline) from None
            raise
        return response


def _read_timed_out(error: Exception) -> bool:
    # requests reports a read timeout inside the body as a ConnectionError; it is a timeout.
    return isinstance(error, requests.ConnectionError) and any(
        isinstance(cause, ReadTimeoutError) for cause in error.args
    )


def _refuse_announced(response: requests.Response, max_bytes: int) -> None:
    try:
        announced = int(response.headers.get("Content-Length") or 0)
    except ValueError:
        return  # requests or the body read will meet it
    if announced > max_bytes:
        raise AnswerTooLarge(max_bytes)


def _body(response: requests.Response, watch: _Watch, max_bytes: int) -> bytes:
    if response._content is not False:
        # An in-process transport (the demo's, a test's) hands its body over already read.
        content = response._content or b""
        if len(content) > max_bytes:
            raise AnswerTooLarge(max_bytes)
        return content
    chunks, total = [], 0
    for chunk in response.iter_content(_CHUNK):
        watch.check()
        total += len(chunk)
        if total > max_bytes:
            raise AnswerTooLarge(max_bytes)
        chunks.append(chunk)
    watch.check()
    return b"".join(chunks)
