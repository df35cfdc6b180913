"""Log to stderr in a format that names the request, so a proxy's logs and ours line up."""

import logging

from flask import Flask


def init_logging(app: Flask) -> None:
    if app.debug or app.testing:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("app")
    if not root.handlers:
        root.addHandler(handler)
    root.setLevel(logging.INFO)
