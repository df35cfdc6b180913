"""A plain ``pip install .`` (a wheel) gives a portal that starts: its templates, static files,
config, migrations, translations and starter catalogue travel inside the package, and its
instance is kept outside it, where an upgrade cannot wipe it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STARTED = """
from app import create_app
from app.config import PROJECT_ROOT
portal = create_app()
client = portal.test_client()
page = client.get("/login", headers={"Accept-Language": "it"})
css = client.get("/static/css/portal.css")
print("root", PROJECT_ROOT)
print("login", page.status_code, 'lang="it"' in page.get_data(as_text=True))
print("accedi", "Accedi" in page.get_data(as_text=True))
print("css", css.status_code)
css.close()
"""


def _checkout_copy(target: Path) -> None:
    """The files git tracks, as they are in the working tree (what a fresh clone would hold)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in tracked)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def test_a_portal_installed_from_a_wheel_starts_and_speaks_italian(tmp_path):
    source, wheels, site = tmp_path / "source", tmp_path / "wheels", tmp_path / "site"
    _checkout_copy(source)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        check=True,
        capture_output=True,
    )
    [wheel] = wheels.glob("*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"  # not the checkout: nothing beside the package
    elsewhere.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PORTAL_", "FLASK_"))},
        "PYTHONPATH": str(site),
        "PORTAL_INSTANCE_PATH": str(tmp_path / "instance"),
        "PORTAL_ORCHESTRATOR_URL": "demo",
    }

    def run(*args):
        return subprocess.run(
            [sys.executable, *args], cwd=elsewhere, env=env, capture_output=True, text=True
        )

    assert run("-m", "app.instance").returncode == 0
    upgraded = run("-m", "flask", "--app", "app", "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    started = run("-c", STARTED)
    assert started.returncode == 0, started.stderr
    lines = dict(line.split(" ", 1) for line in started.stdout.splitlines())
    assert lines["root"] == str(site / "app" / "bundled")
    assert lines["login"] == "200 True" and lines["accedi"] == "True"
    assert lines["css"] == "200"
    assert (tmp_path / "instance" / "portal.sqlite").exists()
