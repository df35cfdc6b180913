"""Prepare the instance folder: ``python -m app.instance`` writes a random secret key once.

Runs without the application, because the application refuses to start without a real key.
"""

import secrets
import sys
from pathlib import Path

from app.config import PROJECT_ROOT


def ensure_instance(instance_dir: Path) -> Path:
    """Create ``instance_dir/portal.cfg`` with a random SECRET_KEY unless it exists."""
    instance_dir.mkdir(parents=True, exist_ok=True)
    settings = instance_dir / "portal.cfg"
    if not settings.exists():
        settings.write_text(
            "# Written by `python -m app.instance`. Settings here override config/defaults.py.\n"
            f"SECRET_KEY = {secrets.token_urlsafe(48)!r}\n"
        )
        settings.chmod(0o600)
    return settings


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else PROJECT_ROOT / "instance"
    print(f"Instance settings: {ensure_instance(target)}")
