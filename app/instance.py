"""Prepare the instance folder: ``python -m app.instance`` writes the install's own settings.

A random secret key, written once; and the orchestrator the install was set up with, so that a
demo install (``make setup`` runs with ``PORTAL_ORCHESTRATOR_URL=demo``) stays a demo for every
later ``flask`` command typed without that variable. Runs without the application, because the
application refuses to start without a real key.
"""

import os
import re
import secrets
import sys
from pathlib import Path

from app.config import DEFAULT_INSTANCE

# A line of portal.cfg that already chooses the orchestrator (the operator's choice wins).
_NAMES_ORCHESTRATOR = re.compile(r"^\s*ORCHESTRATOR_URL\s*=", re.MULTILINE)


def ensure_instance(instance_dir: Path, orchestrator_url: str = "") -> Path:
    """Create ``instance_dir/portal.cfg`` with a random SECRET_KEY unless it exists, and
    record ``orchestrator_url`` in it unless it names an orchestrator already."""
    instance_dir.mkdir(parents=True, exist_ok=True)
    settings = instance_dir / "portal.cfg"
    if not settings.exists():
        settings.write_text(
            "# Written by `python -m app.instance`. Settings here override config/defaults.py.\n"
            f"SECRET_KEY = {secrets.token_urlsafe(48)!r}\n"
        )
        settings.chmod(0o600)
    text = settings.read_text()
    if orchestrator_url and not _NAMES_ORCHESTRATOR.search(text):
        demo = (
            " (the built-in demo: nothing real is deployed)" if orchestrator_url == "demo" else ""
        )
        remembered = (
            f"# The orchestrator this install was set up with{demo}.\n"
            "# PORTAL_ORCHESTRATOR_URL in the environment overrides it.\n"
            f"ORCHESTRATOR_URL = {orchestrator_url!r}\n"
        )
        settings.write_text(text + ("" if text.endswith("\n") else "\n") + remembered)
    return settings


if __name__ == "__main__":
    default = os.environ.get("PORTAL_INSTANCE_PATH") or DEFAULT_INSTANCE
    target = Path(sys.argv[1] if len(sys.argv) > 1 else default)
    written = ensure_instance(target, os.environ.get("PORTAL_ORCHESTRATOR_URL", "").strip())
    print(f"Instance settings: {written}")
