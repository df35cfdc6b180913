"""Prepare the instance folder: ``python -m app.instance`` writes the install's own settings.

A random secret key, written once; and the orchestrator the install was set up with, so that a
demo install (``make setup`` runs with ``PORTAL_ORCHESTRATOR_URL=demo``) stays a demo for every
later ``flask`` command typed without that variable. Runs without the application, because the
application refuses to start without a real key.

The folder and what it holds (the secret key, the SQLite database with everyone's password
hashes and sealed deployment secrets) are the portal user's alone from the moment they exist:
created with modes 0700 and 0600 rather than chmod-ed afterwards, when another user could
already have opened them. Folders and files that exist already are left as the operator set
them.
"""

import os
import re
import secrets
import sys
from pathlib import Path

# A line of portal.cfg that already chooses the orchestrator (the operator's choice wins).
_NAMES_ORCHESTRATOR = re.compile(r"^\s*ORCHESTRATOR_URL\s*=", re.MULTILINE)
PRIVATE_FOLDER, PRIVATE_FILE = 0o700, 0o600


def private_folder(path: Path) -> None:
    """Create the folder ``path`` (and its parents) for the portal's user alone; one that
    exists is left as it is."""
    path.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)


def private_file(path: Path, text: str = "") -> bool:
    """Create ``path`` holding ``text``, readable and writable by the portal's user alone from
    its first moment; False, and nothing written, when it exists already."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    return True


def ensure_instance(instance_dir: Path, orchestrator_url: str = "") -> Path:
    """Create ``instance_dir/portal.cfg`` with a random SECRET_KEY unless it exists, and
    record ``orchestrator_url`` in it unless it names an orchestrator already."""
    private_folder(instance_dir)
    settings = instance_dir / "portal.cfg"
    private_file(
        settings,
        "# Written by `python -m app.instance`. Settings here override config/defaults.py.\n"
        f"SECRET_KEY = {secrets.token_urlsafe(48)!r}\n",
    )
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
    from app.config import DEFAULT_INSTANCE

    default = os.environ.get("PORTAL_INSTANCE_PATH") or DEFAULT_INSTANCE
    target = Path(sys.argv[1] if len(sys.argv) > 1 else default)
    written = ensure_instance(target, os.environ.get("PORTAL_ORCHESTRATOR_URL", "").strip())
    print(f"Instance settings: {written}")
