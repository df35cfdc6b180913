"""The capacity emulators as one small web app: the Federation Registry under ``/fedreg``,
the Infrastructure Manager's quotas under ``/im`` and cluster statistics under
``/papi/<site>``, all describing one ``World``; served over real HTTP on loopback for the
tests and ``make run``'s demo (``python -m app.capacity.emulators``)."""

from __future__ import annotations

import threading

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from app.capacity.emulators import cluster_stats, fedreg, im_quotas
from app.capacity.emulators.world import WORLD, World


def create_emulator(world: World, *, open_to_anonymous: bool = False) -> Flask:
    """The emulators' app over ``world``. ``open_to_anonymous``: the registry shows its
    numbers without a token too (the demo, whose portal has no service identity)."""
    app = Flask(__name__)
    app.config["FEDREG_OPEN_TO_ANONYMOUS"] = open_to_anonymous
    app.extensions[WORLD] = world
    app.register_blueprint(fedreg.bp, url_prefix="/fedreg")
    app.register_blueprint(im_quotas.bp, url_prefix="/im")
    app.register_blueprint(cluster_stats.bp)
    return app


class CapacityEmulatorServer:
    """Serves ``app`` on ``host``:``port`` (0: any free port) in background threads."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0):
        self.server: BaseWSGIServer = make_server(host, port, app, threaded=True)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_port}"
        self._thread: threading.Thread | None = None

    def start(self) -> CapacityEmulatorServer:
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
