"""Loading the configuration: committed defaults, then the operator's file and environment."""

import difflib
import os
import sys
from datetime import timedelta
from pathlib import Path

from flask import Flask

from app.errors import ConfigurationError
from app.instance import private_file, private_folder

DEFAULT_SECRET_KEY = "change-me"


def _files_root() -> Path:
    """Where the portal's templates, static files, config, migrations, translations and starter
    catalogue are: beside the package in a checkout or an editable install; inside it, in
    ``app/bundled``, when it was installed from a wheel, which carries them there (setup.py)."""
    package = Path(__file__).resolve().parent
    bundled = package / "bundled"
    return bundled if bundled.is_dir() else package.parent


PROJECT_ROOT = _files_root()
# An install from a wheel keeps its instance (secret key, SQLite file) outside the package,
# where upgrading would wipe it: Flask's own place for installed applications.
DEFAULT_INSTANCE = (
    Path(sys.prefix) / "var" / "portal-instance"
    if PROJECT_ROOT.name == "bundled"
    else PROJECT_ROOT / "instance"
)


def load_config(app: Flask, overrides: dict | None) -> None:
    """Fill ``app.config`` from defaults, instance file, PORTAL_SETTINGS, PORTAL_* and overrides.

    Raises ConfigurationError when a production setting is unsafe.
    """
    app.config.from_pyfile(str(PROJECT_ROOT / "config" / "defaults.py"))
    app.config.from_pyfile(str(Path(app.instance_path) / "portal.cfg"), silent=True)
    if os.environ.get("PORTAL_SETTINGS"):
        app.config.from_envvar("PORTAL_SETTINGS")
    _warn_of_unknown_variables(app, set(app.config))
    app.config.from_prefixed_env("PORTAL")
    if overrides:
        app.config.update(overrides)
    _derive(app)
    _check(app)


# Variables with the PORTAL_ prefix that are not settings: read by the set-up commands
# (``flask users bootstrap``), by the loading above, and by the test suite (its database).
NOT_SETTINGS = frozenset(
    {"SETTINGS", "INSTANCE_PATH", "ADMIN_PASSWORD", "RESEARCHER_PASSWORD", "TEST_POSTGRES"}
)


def _warn_of_unknown_variables(app: Flask, known: set[str]) -> None:
    """Log each PORTAL_* variable that names no setting, with the closest setting's name: a
    misspelt variable is otherwise silently ignored and the default used instead."""
    for variable in sorted(os.environ):
        if not variable.startswith("PORTAL_"):
            continue
        name = variable.removeprefix("PORTAL_").split("__", 1)[0]
        if name in known or name in NOT_SETTINGS:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f" Did you mean PORTAL_{close[0]}?" if close else ""
        app.logger.warning("%s names no setting of the portal and is ignored.%s", variable, hint)


def _derive(app: Flask) -> None:
    config = app.config
    if not config["SQLALCHEMY_DATABASE_URI"]:
        database = Path(app.instance_path) / "portal.sqlite"
        # SQLite would create it with the process's umask (0644): made private first.
        private_folder(database.parent)
        private_file(database)
        config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + str(database)
    config["CATALOGUE_DIR"] = config["CATALOGUE_DIR"] or str(PROJECT_ROOT / "tosca-catalog")
    config["TOSCA_TYPES_DIR"] = config["TOSCA_TYPES_DIR"] or str(
        Path(config["CATALOGUE_DIR"]) / "types"
    )
    config["MIGRATIONS_DIR"] = str(PROJECT_ROOT / "migrations")
    config["BABEL_TRANSLATION_DIRECTORIES"] = str(PROJECT_ROOT / "translations")
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
