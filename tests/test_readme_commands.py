"""The README's account, quota and catalogue commands work as written after `make setup`.

A new operator runs `make run`, stops it, then types the README's commands in another shell,
where PORTAL_ORCHESTRATOR_URL is not set: the install itself must remember that it is a demo.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The README's commands of these groups, in the order the README gives them.
GROUPS = ("users", "quota", "catalogue")


def readme_commands() -> list[list[str]]:
    """Every ``.venv/bin/flask users|quota|catalogue`` line of the README's code blocks, with
    line continuations joined, comments dropped and optional ``[ARGUMENTS]`` left out."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == [".venv/bin/flask"] and words[1:2] and words[1] in GROUPS:
                commands.append([word for word in words if not word.startswith("[")])
    return commands


def test_the_readme_names_the_commands_this_test_runs():
    named = {tuple(command[1:3]) for command in readme_commands()}
    assert ("users", "create") in named and ("quota", "set") in named
    assert ("catalogue", "import") in named and ("catalogue", "types") in named


@pytest.fixture
def demo_install(tmp_path):
    """`make setup` (the steps `make run` takes before serving) into a temporary instance
    folder and catalogue, then a shell without PORTAL_ORCHESTRATOR_URL in a folder that looks
    like the checkout (``.venv`` and ``wsgi.py`` where the README expects them)."""
    if shutil.which("make") is None:
        pytest.fail("make is missing: the README's commands start with `make run`.")
    catalogue = tmp_path / "tosca-catalog"
    shutil.copytree(ROOT / "tosca-catalog", catalogue)
    shell = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")}
    shell |= {
        "PORTAL_INSTANCE_PATH": str(tmp_path / "instance"),
        "PORTAL_CATALOGUE_DIR": str(catalogue),
        "PORTAL_ADMIN_PASSWORD": "an admin password for tests",
        "PORTAL_RESEARCHER_PASSWORD": "a researcher password for tests",
    }
    shell.pop("FLASK_APP", None)
    setup = subprocess.run(
        ["make", "setup", f"VENV={Path(sys.executable).parents[1]}"],
        cwd=ROOT,
        env=shell,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(Path(sys.executable).parents[1])
    (checkout / "wsgi.py").symlink_to(ROOT / "wsgi.py")
    shutil.copytree(catalogue / "types" / "indigo-v4.0.1", checkout / "tosca-types")
    return checkout, shell


def test_every_readme_command_runs_as_written_after_setup(demo_install):
    checkout, shell = demo_install
    assert "PORTAL_ORCHESTRATOR_URL" not in shell
    commands = readme_commands()
    for command in commands:
        ended = subprocess.run(
            command, cwd=checkout, env=shell, capture_output=True, text=True, timeout=120
        )
        said = ended.stdout + ended.stderr
        assert ended.returncode == 0, f"{shlex.join(command)} failed:\n{said}"
        assert "did not start" not in said and "Traceback" not in said


def test_a_command_without_an_orchestrator_says_what_to_set_in_command_words(tmp_path):
    shell = {key: value for key, value in os.environ.items() if not key.startswith("PORTAL_")}
    shell |= {"PORTAL_INSTANCE_PATH": str(tmp_path), "PORTAL_SECRET_KEY": "s" * 40}
    shell.pop("FLASK_APP", None)
    ended = subprocess.run(
        [sys.executable, "-m", "flask", "users", "list"],
        cwd=ROOT,
        env=shell,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ended.returncode == 1
    assert "this command cannot run. No orchestrator is configured." in ended.stderr
    assert "PORTAL_ORCHESTRATOR_URL" in ended.stderr and "make setup" in ended.stderr
    assert "did not start" not in ended.stderr and "Traceback" not in ended.stderr


def test_setup_remembers_the_orchestrator_once_and_keeps_the_operators_choice(tmp_path):
    from app.instance import ensure_instance

    settings = ensure_instance(tmp_path, "demo")
    ensure_instance(tmp_path, "demo")
    assert settings.read_text().count("ORCHESTRATOR_URL = 'demo'") == 1
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    (chosen / "portal.cfg").write_text("ORCHESTRATOR_URL = 'https://paas.example.org'\n")
    ensure_instance(chosen, "demo")
    assert "demo" not in (chosen / "portal.cfg").read_text()
