"""Loading the configuration: committed defaults, then the operator's file and environment."""

import difflib
import os
import sys
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

from flask import Config, Flask

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
    renamed = _Renamed(app)
    instance_file = Config(app.config.root_path)
    instance_file.from_pyfile(str(Path(app.instance_path) / "portal.cfg"), silent=True)
    renamed.merge(instance_file)
    if os.environ.get("PORTAL_SETTINGS"):
        settings_file = Config(app.config.root_path)
        settings_file.from_envvar("PORTAL_SETTINGS")
        renamed.merge(settings_file)
    _warn_of_unknown_variables(app, set(app.config) | set(RENAMED))
    # Loaded in place: a PORTAL_A__B variable sets one key inside the dictionary A already holds.
    app.config.from_prefixed_env("PORTAL")
    renamed.settle(_environment_names())
    if overrides:
        renamed.merge(overrides)
    _derive(app)
    _check(app)


# Settings that were renamed: old name -> new name. The code reads only the new names; an old
# one, wherever it is set (a settings file, a PORTAL_* variable, a test's overrides), is read
# as its new name when settings are loaded, with a warning. Within one source the new name wins
# when both are set; a later source overrides an earlier one whatever name either uses.
RENAMED = {
    "QUEUE_ENABLED": "LINE_ENABLED",
    "QUEUE_MAX_WAIT": "LINE_MAX_WAIT",
    "QUEUE_FAIR_SHARE": "LINE_FAIR_SHARE",
    "QUEUE_FAIR_SHARE_WINDOW": "LINE_FAIR_SHARE_WINDOW",
    "QUEUE_FAIR_SHARE_MINUTES_PER_GPU_HOUR": "LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR",
    "QUEUE_FAIR_SHARE_MAX_DELAY": "LINE_FAIR_SHARE_MAX_DELAY",
    "QUEUE_ADMIT_BATCH": "LINE_ADMIT_BATCH",
}


class _Renamed:
    """Reads old setting names (``RENAMED``) as the new ones, source by source, and warns once
    for each old name found."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.warned: set[str] = set()

    def merge(self, source: Mapping) -> None:
        """Put the settings of ``source`` into the configuration, old names under new ones."""
        self.app.config.update(source)
        self.settle(set(source))

    def settle(self, set_here: set[str]) -> None:
        """Move each old name among ``set_here`` (just loaded into the configuration) to its new
        name, unless the same source set the new name too."""
        config = self.app.config
        for old in sorted(set_here & RENAMED.keys()):
            new, value = RENAMED[old], config.pop(old)
            if new in set_here:
                self._warn(old, "%s and its new name %s are both set: %s is used.", new)
            else:
                config[new] = value
                self._warn(old, "%s is now called %s: it is read as %s; rename it.", new)

    def _warn(self, old: str, message: str, new: str) -> None:
        if old not in self.warned:
            self.warned.add(old)
            self.app.logger.warning(message, old, new, new)


# Variables with the PORTAL_ prefix that are not settings: read by the set-up commands
# (``flask users bootstrap``), by the loading above, and by the test suite (its database).
NOT_SETTINGS = frozenset(
    {"SETTINGS", "INSTANCE_PATH", "ADMIN_PASSWORD", "RESEARCHER_PASSWORD", "TEST_POSTGRES"}
)


def _environment_names() -> set[str]:
    """The settings the PORTAL_* variables name (PORTAL_A__B names A)."""
    return {
        variable.removeprefix("PORTAL_").split("__", 1)[0]
        for variable in os.environ
        if variable.startswith("PORTAL_")
    }


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
