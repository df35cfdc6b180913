"""The orchestrator emulator served over real HTTP, one thread per connection.

A clock thread moves deployments on when their time has come, so that callbacks go out even
when nobody polls. Everything shares one ``Emulator`` state, whose store and logs are safe to
use from several threads.
"""

from __future__ import annotations

import threading

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from app.backends.paas.emulator.core import emulator_of

TICK_SECONDS = 0.1


class EmulatorServer:
    """Serves the emulator ``app`` on ``host``:``port`` (0: any free port)."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0):
        self.app = app
        self.server: BaseWSGIServer = make_server(host, port, app, threaded=True)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_port}"
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def _tick(self) -> None:
        state = emulator_of(self.app)
        while not self._stopping.wait(TICK_SECONDS):
            if state.complete_after_seconds is not None:
                state.advance_all()

    def start(self) -> EmulatorServer:
        """Serve in background threads and return at once."""
        for target in (self._serve, self._tick):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def _serve(self) -> None:
        self.server.serve_forever(poll_interval=0.05)

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted."""
        ticker = threading.Thread(target=self._tick, daemon=True)
        ticker.start()
        try:
            self._serve()
        finally:
            self._stopping.set()

    def stop(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()
