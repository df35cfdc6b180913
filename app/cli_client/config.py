"""Where rcp finds the portal and its token: ``RCP_URL`` and ``RCP_TOKEN`` in the environment,
else the config file (``RCP_CONFIG``, default ``~/.config/rcp/config.ini``):

    [portal]
    url = https://portal.example.org
    token = rcp_...

The file holds a secret, so it must be readable by its owner only (``chmod 600``); a file that
others could read is refused rather than used. The environment wins over the file, value by value.
"""

from __future__ import annotations

import configparser
import os
import stat
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    """rcp cannot tell which portal to call or with which token; the message says how to fix."""


@dataclass(frozen=True)
class Settings:
    url: str
    token: str


def config_path() -> Path:
    return Path(os.environ.get("RCP_CONFIG") or Path.home() / ".config" / "rcp" / "config.ini")


def _from_file(path: Path) -> dict[str, str]:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return {}
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"{path} can be read by other people, and it holds your token: rcp will not use it. "
            f"Run: chmod 600 {path}"
        )
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as error:
        # Never the line itself: it may be the token.
        raise ConfigError(
            f"{path} is not a valid config file ({_where(error)}). Write it as a [portal] "
            "section with the lines url = ... and token = ...; its contents are not shown "
            "because they may hold your token."
        ) from None
    return dict(parser["portal"]) if parser.has_section("portal") else {}


def _where(error: configparser.Error) -> str:
    """Where ``error`` is in the file and what kind it is, without any of the file's text."""
    lines = sorted({number for number, _line in getattr(error, "errors", ())})
    if getattr(error, "lineno", None):
        lines = [error.lineno]
    kinds = {
        configparser.MissingSectionHeaderError: "no [portal] line before the first setting",
        configparser.DuplicateSectionError: "a section written twice",
        configparser.DuplicateOptionError: "a setting written twice",
        configparser.ParsingError: "a line that is not name = value",
    }
    kind = next((text for cls, text in kinds.items() if isinstance(error, cls)), "unreadable")
    where = ", ".join(str(number) for number in lines)
    return f"{kind}, line {where}" if where else kind


def load() -> Settings:
    """The settings to use; raises ConfigError when the URL or the token is missing."""
    url, token = os.environ.get("RCP_URL", ""), os.environ.get("RCP_TOKEN", "")
    if not (url and token):
        saved = _from_file(config_path())
        url, token = url or saved.get("url", ""), token or saved.get("token", "")
    if not url or not token:
        raise ConfigError(
            "Tell rcp which portal to use and your access token: set RCP_URL and RCP_TOKEN, or "
            f"write them in {config_path()} (section [portal], keys url and token; chmod 600). "
            "Create a token on the portal's Account page."
        )
    if not url.startswith(("http://", "https://")):
        # Not echoed: a token written on the url line would be printed.
        raise ConfigError(
            f"The portal's address (RCP_URL, or url in {config_path()}) must start with "
            "https:// (or http://)."
        )
    return Settings(url.rstrip("/"), token.strip())
