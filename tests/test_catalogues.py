"""The compiled message catalogues follow their sources whichever way the portal is installed
or started, and a language whose catalogue cannot be read is not claimed.

Each case runs a copy of the checkout as git holds it (no ``.mo``: git ignores them) in a
process of its own, as a portal started by gunicorn or ``flask`` would run.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app import catalogues

ROOT = Path(__file__).resolve().parents[1]
# What a started portal reads besides its code (the tests and benchmarks are left behind).
SHIPPED = ("app", "config", "templates", "static", "translations", "migrations", "tosca-catalog")
SHIPPED_FILES = ("wsgi.py", "setup.py", "setup.cfg", "pyproject.toml", "README.md")

# Starts the portal of the checkout it runs in, and tells what an Italian browser is served.
SERVE = textwrap.dedent(
    """
    import json, logging, os, re, sys
    os.makedirs(sys.argv[1], exist_ok=True)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    import app
    from app import create_app
    from app.extensions import db
    portal = create_app(
        {"TESTING": True, "SECRET_KEY": "k" * 48, "ORCHESTRATOR_URL": "demo", "LDAP": None,
         "LOCAL_LOGIN_ENABLED": True, "OIDC_PROVIDERS": []},
        instance_path=sys.argv[1],
    )
    with portal.app_context():
        db.create_all()
    page = portal.test_client().get("/login", headers={"Accept-Language": "it-IT,it;q=0.9"})
    html = page.get_data(as_text=True)
    print(json.dumps({
        "package": app.__file__,
        "status": page.status_code,
        "lang": re.search(r'<html lang="([^"]+)"', html).group(1),
        "offered": re.findall(r'name="locale" value="([^"]+)"', html),
        "words": html,
    }))
    """
)


def checkout_copy(tmp_path: Path) -> Path:
    """The files git holds of what the portal reads, without compiled catalogues."""
    copy = tmp_path / "checkout"
    for name in SHIPPED:
        shutil.copytree(
            ROOT / name, copy / name, ignore=shutil.ignore_patterns("*.mo", "__pycache__")
        )
    for name in SHIPPED_FILES:
        shutil.copy2(ROOT / name, copy / name)
    assert not list(copy.glob("translations/*/LC_MESSAGES/*.mo"))
    return copy


def start(copy: Path, instance: Path | None = None) -> tuple[dict, str]:
    """Start the portal of ``copy`` in a new process; what an Italian browser gets, and what
    the start logged."""
    instance = instance or copy / "instance"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")}
    env["PYTHONPATH"] = str(copy)
    ended = subprocess.run(
        [sys.executable, "-c", SERVE, str(instance)],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ended.returncode == 0, ended.stderr
    served = json.loads(ended.stdout.splitlines()[-1])
    assert served["package"] == str(copy / "app" / "__init__.py")
    assert served["status"] == 200
    return served, ended.stderr


def italian_source(copy: Path) -> Path:
    return copy / "translations" / "it" / "LC_MESSAGES" / "messages.po"


def test_a_checkout_started_without_make_compiles_its_catalogues_and_serves_italian(tmp_path):
    copy = checkout_copy(tmp_path)
    served, _ = start(copy)
    assert served["lang"] == "it"
    assert "Accedi" in served["words"]
    assert served["offered"] == ["en", "it"]
    assert (copy / "translations" / "it" / "LC_MESSAGES" / "messages.mo").exists()


def test_a_translation_edited_after_compiling_is_served_at_the_next_start(tmp_path):
    copy = checkout_copy(tmp_path)
    start(copy)
    po = italian_source(copy)
    po.write_text(po.read_text().replace('msgstr "Accedi"', 'msgstr "Entra nel portale"', 1))
    mo = po.with_suffix(".mo")
    # An upgrade brings a newer .po beside the .mo an earlier start compiled.
    later = mo.stat().st_mtime + 60
    os.utime(po, (later, later))
    served, _ = start(copy)
    assert served["lang"] == "it"
    assert "Entra nel portale" in served["words"]


def test_portals_starting_together_each_read_a_whole_catalogue(tmp_path):
    copy = checkout_copy(tmp_path)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")}
    env["PYTHONPATH"] = str(copy)
    starting = [
        subprocess.Popen(
            [sys.executable, "-c", SERVE, str(tmp_path / f"instance-{number}")],
            cwd=copy,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for number in range(4)
    ]
    for process in starting:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err
        served = json.loads(out.splitlines()[-1])
        assert served["lang"] == "it" and "Accedi" in served["words"]
        assert "message catalogue" not in err
    # No half-written catalogue is left beside the one they share.
    assert sorted(path.name for path in italian_source(copy).parent.iterdir()) == [
        "messages.mo",
        "messages.po",
    ]


def test_a_catalogue_that_cannot_be_compiled_gives_english_pages_that_say_so(tmp_path):
    copy = checkout_copy(tmp_path)
    italian_source(copy).write_text('msgid "Log in"\nmsgstr "Accedi"\nmsgid\n')
    served, logged = start(copy)
    assert served["lang"] == "en"
    assert "Accedi" not in served["words"] and "Log in" in served["words"]
    assert served["offered"] == ["en"]
    assert "WARNING app.catalogues: The it message catalogue could not be compiled" in logged
    assert "No it message catalogue" in logged


def test_an_unreadable_compiled_catalogue_is_not_offered(tmp_path):
    copy = checkout_copy(tmp_path)
    mo = italian_source(copy).with_suffix(".mo")
    mo.write_bytes(b"not a catalogue at all")
    later = italian_source(copy).stat().st_mtime + 60
    os.utime(mo, (later, later))  # newer than its source, so taken as it is
    served, logged = start(copy)
    assert served["lang"] == "en" and served["offered"] == ["en"]
    assert "Log in" in served["words"]
    assert "cannot be read" in logged and "served in English instead" in logged


def test_read_only_catalogues_are_compiled_into_the_instance_folder(tmp_path, monkeypatch):
    copy = checkout_copy(tmp_path)
    root = copy / "translations"
    # Installed read-only (a package owned by another user): nothing may be written beside it.
    writable = os.access
    monkeypatch.setattr(
        catalogues.os,
        "access",
        lambda path, mode: False if root in Path(path).parents else writable(path, mode),
    )
    folder = catalogues.prepare(root, tmp_path / "instance")
    assert folder == tmp_path / "instance" / "translations"
    assert catalogues.readable(folder, "it")
    assert not list(root.glob("*/LC_MESSAGES/*.mo"))


def test_installing_the_package_compiles_the_catalogues(tmp_path):
    # The command pip runs to build a wheel or an editable install, with the hook in setup.py.
    copy = checkout_copy(tmp_path)
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path / "build")],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    mo = italian_source(copy).with_suffix(".mo")
    assert catalogues.readable(mo.parents[2], "it")


@pytest.mark.parametrize("state", ["missing", "older"])
def test_compile_stale_writes_a_catalogue_only_when_missing_or_older(tmp_path, state):
    root = tmp_path / "translations"
    shutil.copytree(ROOT / "translations", root, ignore=shutil.ignore_patterns("*.mo"))
    po = root / "it" / "LC_MESSAGES" / "messages.po"
    if state == "older":
        catalogues.compile_stale(root)
        os.utime(po.with_suffix(".mo"), (po.stat().st_mtime - 60,) * 2)
    assert catalogues.compile_stale(root) == [po.with_suffix(".mo")]
    assert catalogues.compile_stale(root) == []
