"""``python -m app.capacity.emulators --port 5081``: serve the demo's capacity sources."""

from __future__ import annotations

import argparse
import contextlib

from werkzeug.serving import make_server

from app.capacity.emulators.demo import demo_world
from app.capacity.emulators.server import create_emulator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5081)
    arguments = parser.parse_args()
    app = create_emulator(demo_world(), open_to_anonymous=True)
    server = make_server(arguments.host, arguments.port, app, threaded=True)
    print(f"Capacity sources of the demo on http://{arguments.host}:{arguments.port}/", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
