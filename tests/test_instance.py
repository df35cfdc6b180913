"""The instance folder, its settings and its SQLite database are the portal user's alone from
the moment they exist, whatever the umask of the shell that ran the setup."""

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_setup_creates_the_instance_folder_settings_and_database_private(tmp_path):
    instance = tmp_path / "instance"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PORTAL_", "FLASK_"))},
        "PORTAL_INSTANCE_PATH": str(instance),
        "PORTAL_ORCHESTRATOR_URL": "demo",
    }

    def run(*args):
        # The usual umask of a shell, which leaves new files readable by everyone.
        return subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=lambda: os.umask(0o022),
        )

    assert run("-m", "app.instance").returncode == 0
    upgraded = run("-m", "flask", "--app", "app", "db", "upgrade")

    assert upgraded.returncode == 0, upgraded.stderr
    assert mode(instance) == 0o700
    assert mode(instance / "portal.cfg") == 0o600
    database = instance / "portal.sqlite"
    assert database.stat().st_size > 0 and mode(database) == 0o600


def test_an_existing_database_and_settings_are_left_as_they_are(tmp_path):
    from app.instance import ensure_instance, private_file

    settings = tmp_path / "portal.cfg"
    settings.write_text("SECRET_KEY = 'kept'\n")
    settings.chmod(0o640)

    ensure_instance(tmp_path)

    assert settings.read_text() == "SECRET_KEY = 'kept'\n" and mode(settings) == 0o640
    assert private_file(settings, "other") is False
    assert settings.read_text() == "SECRET_KEY = 'kept'\n"
