"""The one place in the TOSCA library that reads the app's settings: the running app's, or
outside a request (parsing a template from the command line, a bare test app) the committed
defaults."""

from __future__ import annotations

from functools import lru_cache

from flask import Config, current_app, has_app_context

from app.config import PROJECT_ROOT


@lru_cache(maxsize=1)
def _committed() -> Config:
    config = Config(str(PROJECT_ROOT))
    config.from_pyfile(str(PROJECT_ROOT / "config" / "defaults.py"))
    return config


def setting(name: str):
    """The value of setting ``name``."""
    # An app built without the portal's settings (a bare test app) gets the committed ones.
    if has_app_context() and name in current_app.config:
        return current_app.config[name]
    return _committed()[name]
