"""The one place in the TOSCA library that reads the app's settings: the running app's, or
outside a request (parsing a template from the command line, a bare test app) the committed
defaults."""

from __future__ import annotations

from functools import lru_cache

from flask import Config
from flask.globals import _cv_app

from app.config import PROJECT_ROOT


@lru_cache(maxsize=1)
def _committed() -> Config:
    config = Config(str(PROJECT_ROOT))
    config.from_pyfile(str(PROJECT_ROOT / "config" / "defaults.py"))
    return config


def setting(name: str):
    """The value of setting ``name``."""
    # The app context read directly rather than through ``current_app``'s proxy: numbers ask
    # for their digit limits several times for each value a form checks.
    app_context = _cv_app.get(None)
    # An app built without the portal's settings (a bare test app) gets the committed ones.
    if app_context is not None and name in app_context.app.config:
        return app_context.app.config[name]
    return _committed()[name]
