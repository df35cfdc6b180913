"""Failures the orchestrator emulator can be told to show, and the log of what it was asked.

Faults act in front of the emulated API, as a slow network, a failing gateway or a crashing
service would: before authentication, on every path except the control prefix. ``paths``
restricts them to some calls: shell-style patterns of the path (``/deployments/*``), optionally
preceded by a method (``POST /deployments``).
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field, fields
from fnmatch import fnmatchcase
from urllib.parse import parse_qsl

from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wrappers import Response

CONTROL_PREFIX = "/__emulator__/"
# A hung call gives up after this many seconds even if nobody clears the fault.
MAX_HANG_SECONDS = 600.0
LOST_RESPONSE_MODES = (False, "drop", "504")
_INJECTED = {
    409: "The request couldn't be fulfilled because of a concurrent update. Please retry later"
}


class ConnectionDropped(Exception):
    """Raised inside the emulator when a call must end without any answer (in-process mode)."""


class ConnectionHung(Exception):
    """Raised inside the emulator when a call must never be answered (in-process mode)."""


@dataclass
class Faults:
    """The switches. ``latency`` seconds before every answer; ``error_rate`` (0 to 1) of calls
    answered ``error_status``, with an error body or none (``error_body``); ``gateway_errors``
    writes every error as ``{error, error_description}``; ``hang`` holds calls until the fault
    is cleared; ``lose_create_response`` stores a create and then drops the connection
    ("drop", or True) or answers 504 ("504"); ``fail_creates`` ends every new deployment in
    CREATE_FAILED and ``fail_next_creates`` the next N; ``down`` refuses connections (only the
    in-process transport can). ``paths`` (None: all) limits the network faults to some calls.
    """

    latency: float = 0.0
    error_rate: float = 0.0
    error_status: int = 500
    error_body: bool = True
    gateway_errors: bool = False
    hang: bool = False
    lose_create_response: bool | str = False
    fail_creates: bool = False
    fail_next_creates: int = 0
    down: bool = False
    paths: list[str] | None = None
    changed: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)

    # The first switches had other names; they stay as aliases.
    @property
    def delay(self) -> float:
        return self.latency

    @delay.setter
    def delay(self, seconds: float) -> None:
        self.latency = seconds

    @property
    def status(self) -> int | None:
        """Shorthand: every call answered with this status (None: off)."""
        return self.error_status if self.error_rate >= 1 else None

    @status.setter
    def status(self, code: int | None) -> None:
        self.error_rate, self.error_status = (0.0, 500) if code is None else (1.0, code)

    def update(self, **switches) -> None:
        """Set the named switches; raises ValueError for an unknown name or a bad value."""
        known = {item.name for item in fields(self)} - {"changed"}
        for name, value in switches.items():
            if name not in known:
                raise ValueError(f"unknown fault {name!r} (known: {', '.join(sorted(known))})")
            _check(name, value)
            setattr(self, name, value)
        self._wake()

    def clear(self) -> None:
        """Switch every fault off (and let hung calls go on)."""
        for item in fields(self):
            if item.name != "changed":
                setattr(self, item.name, item.default)
        self._wake()

    def as_dict(self) -> dict:
        return {
            item.name: getattr(self, item.name) for item in fields(self) if item.name != "changed"
        }

    def _wake(self) -> None:
        # Hung calls wait on this event and look at the switches again when it fires.
        self.changed.set()
        self.changed = threading.Event()

    def applies_to(self, method: str, path: str) -> bool:
        if self.paths is None:
            return True
        for pattern in self.paths:
            wanted_method, _, wanted_path = pattern.rpartition(" ")
            if wanted_method and wanted_method.upper() != method.upper():
                continue
            if fnmatchcase(path, wanted_path):
                return True
        return False

    def take_create_failure(self) -> bool:
        """Whether the deployment being created must fail (counts ``fail_next_creates`` down)."""
        if self.fail_next_creates > 0:
            self.fail_next_creates -= 1
            return True
        return self.fail_creates

    def hold(self, can_block: bool) -> None:
        """Wait while ``hang`` is on (or raise ConnectionHung when the caller cannot wait)."""
        if not self.hang:
            return
        if not can_block:
            raise ConnectionHung()
        deadline = time.monotonic() + MAX_HANG_SECONDS
        while self.hang and time.monotonic() < deadline:
            self.changed.wait(min(1.0, max(0.0, deadline - time.monotonic())))

    def roll_error(self, chooser: random.Random) -> bool:
        return self.error_rate > 0 and chooser.random() < self.error_rate


def _check(name: str, value) -> None:
    numbers = {
        "latency": (0, 3600),
        "error_rate": (0, 1),
        "error_status": (100, 599),
        "fail_next_creates": (0, 10**6),
    }
    if name in numbers:
        low, high = numbers[name]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise ValueError(f"{name} must be a number from {low} to {high}")
    elif name == "lose_create_response":
        if value is not True and value not in LOST_RESPONSE_MODES:
            raise ValueError('lose_create_response must be false, true, "drop" or "504"')
    elif name == "paths":
        if value is not None and not (
            isinstance(value, list) and all(isinstance(item, str) for item in value)
        ):
            raise ValueError("paths must be a list of patterns, or null")
    elif not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false")


class RequestLog:
    """The calls received (method, path, query), oldest first; the last ``limit`` are kept."""

    def __init__(self, limit: int = 200_000):
        self._entries: deque[dict] = deque(maxlen=limit)
        self._lock = threading.Lock()

    def add(self, method: str, path: str, query: dict[str, str]) -> None:
        with self._lock:
            self._entries.append({"method": method, "path": path, "query": query})

    def entries(self) -> list[dict]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def error_response(faults: Faults, status: int, message: str, with_body: bool = True) -> Response:
    """An error answer in the orchestrator's shape ``{code, title, message}``, or the gateway
    shape ``{error, error_description}`` when ``faults.gateway_errors`` is on, or empty."""
    title = HTTP_STATUS_CODES.get(status, "Error")
    if not with_body:
        return Response(b"", status=status)
    if faults.gateway_errors:
        body = {"error": title.lower().replace(" ", "_"), "error_description": message}
    else:
        body = {"code": status, "title": title, "message": message}
    return Response(json.dumps(body), status=status, mimetype="application/json")


class FaultMiddleware:
    """Wraps the emulator's WSGI app: logs each call, then applies the faults that match it.

    Behind the real HTTP server (which puts the socket in ``werkzeug.socket``) a hang blocks
    and a lost response really drops the connection; in-process, where nothing can block or
    drop, ConnectionHung and ConnectionDropped are raised for the transport to translate.
    """

    def __init__(self, app, state):
        self.app, self.state = app, state

    def __call__(self, environ, start_response):
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "")
        if path.startswith(CONTROL_PREFIX):
            return self.app(environ, start_response)
        query = dict(parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True))
        self.state.requests.add(method, path, query)
        faults: Faults = self.state.faults
        if not faults.applies_to(method, path):
            return self.app(environ, start_response)
        if faults.latency:
            time.sleep(faults.latency)
        faults.hold(can_block="werkzeug.socket" in environ)
        if faults.roll_error(self.state.chooser):
            status = faults.error_status
            answer = error_response(
                faults, status, _INJECTED.get(status, "Injected failure"), faults.error_body
            )
            if status == 409:
                # The orchestrator's only 409 that is not about the deployment's state: a
                # concurrent update, rolled back, "retry now".
                answer.headers["Retry-After"] = "0"
            return answer(environ, start_response)
        lost = faults.lose_create_response
        if lost and method == "POST" and path.rstrip("/") == "/deployments":
            return self._lose_create(environ, start_response, lost)
        return self.app(environ, start_response)

    def _lose_create(self, environ, start_response, mode):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured.update(status=status, headers=headers)
            return lambda data: None

        answer = self.app(environ, capture)
        try:
            body = b"".join(answer)
        finally:
            getattr(answer, "close", lambda: None)()
        if not captured["status"].startswith("201"):
            start_response(captured["status"], captured["headers"])
            return [body]
        if mode == "504":
            timeout = error_response(self.state.faults, 504, "Gateway Timeout")
            return timeout(environ, start_response)
        connection = environ.get("werkzeug.socket")
        if connection is None:
            raise ConnectionDropped()
        with contextlib.suppress(OSError):  # the client may already be gone
            connection.shutdown(socket.SHUT_RDWR)
        # The server treats this as a client that went away and writes nothing more.
        raise ConnectionAbortedError("emulated lost response")
