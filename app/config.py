"""Loading the configuration: committed defaults, then the operator's file and environment."""

import os
from datetime import timedelta
from pathlib import Path

from flask import Flask

from app.errors import ConfigurationError

DEFAULT_SECRET_KEY = "change-me"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def load_config(app: Flask, overrides: dict | None) -> None:
    """Fill ``app.config`` from defaults, instance file, PORTAL_SETTINGS, PORTAL_* and overrides.

    Raises ConfigurationError when a production setting is unsafe.
    """
    app.config.from_pyfile(str(PROJECT_ROOT / "config" / "defaults.py"))
    app.config.from_pyfile(str(Path(app.instance_path) / "portal.cfg"), silent=True)
    if os.environ.get("PORTAL_SETTINGS"):
        app.config.from_envvar("PORTAL_SETTINGS")
    app.config.from_prefixed_env("PORTAL")
    if overrides:
        app.config.update(overrides)
    _derive(app)
    _check(app)


def _derive(app: Flask) -> None:
    config = app.config
    if not config["SQLALCHEMY_DATABASE_URI"]:
        config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + str(
            Path(app.instance_path) / "portal.sqlite"
        )
    config["CATALOGUE_DIR"] = config["CATALOGUE_DIR"] or str(PROJECT_ROOT / "tosca-catalog")
    config["TOSCA_TYPES_DIR"] = config["TOSCA_TYPES_DIR"] or str(
        Path(config["CATALOGUE_DIR"]) / "types"
    )
    config["MIGRATIONS_DIR"] = str(PROJECT_ROOT / "migrations")
    config["BABEL_TRANSLATION_DIRECTORIES"] = str(PROJECT_ROOT / "translations")
    if not config.get("ORCHESTRATOR_URL") and config["DEVELOPMENT"]:
        config["ORCHESTRATOR_URL"] = "demo"
    config["PERMANENT_SESSION_LIFETIME"] = timedelta(minutes=config["SESSION_LIFETIME_MINUTES"])
    if config["SESSION_COOKIE_SECURE"] is None:
        config["SESSION_COOKIE_SECURE"] = not config["DEVELOPMENT"]
    config["REMEMBER_COOKIE_SECURE"] = config["SESSION_COOKIE_SECURE"]
    config["SESSION_COOKIE_HTTPONLY"] = True
    config["REMEMBER_COOKIE_HTTPONLY"] = True
    config["BOOTSTRAP_SERVE_LOCAL"] = True
    config["BOOTSTRAP_ICON_USE_FONT"] = False


def _check(app: Flask) -> None:
    if app.config["SECRET_KEY"] == DEFAULT_SECRET_KEY and not app.config["DEVELOPMENT"]:
        raise ConfigurationError(
            "SECRET_KEY is the default. Set PORTAL_SECRET_KEY, or run "
            "`python -m app.instance` (which `make setup` and `make run` do) to write a random "
            "one to instance/portal.cfg."
        )
    if not app.config.get("ORCHESTRATOR_URL"):
        raise ConfigurationError(
            "No orchestrator is configured. Set PORTAL_ORCHESTRATOR_URL to the PaaS "
            'orchestrator\'s URL, or to "demo" for the built-in emulator (nothing real is '
            "deployed); `make setup` writes the demo's setting to instance/portal.cfg."
        )
    _check_im(app.config)


def _check_im(config) -> None:
    """IM_TIMEOUT is seconds or a (connect, read) pair; an IM_URL needs a cloud to deploy to."""
    timeout = config.get("IM_TIMEOUT")
    pair = timeout if isinstance(timeout, list | tuple) else [timeout]
    if len(pair) not in (1, 2) or not all(
        isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        for value in pair
    ):
        raise ConfigurationError(
            "IM_TIMEOUT must be a number of seconds, or a (connect, read) pair of them."
        )
    if config.get("IM_URL") and not config.get("IM_CLOUDS"):
        raise ConfigurationError(
            "IM_URL is set but IM_CLOUDS names no cloud: the Infrastructure Manager needs at "
            "least one auth line for a cloud to deploy to."
        )
