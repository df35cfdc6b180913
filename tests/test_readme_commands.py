"""Every command and setting the README shows works as written.

A new operator runs `make run`, then types the README's commands in another shell, where
PORTAL_ORCHESTRATOR_URL is not set: the install itself must remember that it is a demo. Each
command of a ``sh`` block is run by a test here, as written, or listed in ``NOT_RUN`` with the
reason. Two things alone differ from the README: the port (`make run PORT=...` and the
README's ``127.0.0.1:5000`` become a free one, as other tests may be serving), and the mail
server's address (the real SMTP server the test starts).
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.fixtures.smtp import SmtpServer, free_port

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parents[1]
README_ADDRESS = "127.0.0.1:5000"
# The README's `flask` commands of these groups, run one by one after `make setup`, in the
# order the README gives them.
GROUPS = ("users", "groups", "quota", "catalogue", "tokens", "leases", "sites", "capacity", "db")
# The commands no test here runs as written, and why.
NOT_RUN = {
    "make test": "runs the whole suite, this test among it",
    "make translations": "rewrites the checkout's catalogues; tests/test_translations.py runs "
    "the same extraction and fails while it would change anything",
    "git pull": "needs the project's remote and changes the checkout",
    ".venv/bin/pip install -e .": "reinstalls the virtualenv the suite runs in; "
    "tests/test_catalogues.py builds the package with the same setup.py",
    ".venv/bin/flask notifications send --loop": "runs until stopped: `make run`'s worker sends "
    "the mails, as test_make_run_with_the_readme_mail_settings_serves_rcp_and_mails checks",
    "export PORTAL_IM_": "an example site's IM address and credentials: "
    "tests/backends/im/test_im_check.py sets the same settings for the suite's own IM",
    "export 'PORTAL_IM_": "an example site's IM clouds and their credentials: "
    "tests/backends/im/test_im_check.py sets the suite's own Dummy cloud",
    ".venv/bin/flask backends check": "needs an IM: tests/backends/im/test_im_check.py runs it "
    "against the suite's real IM",
    "export 'PORTAL_CAPACITY_SOURCES": "an example site's capacity sources: tests/capacity/ "
    "reads the same kinds from their emulators, and `make run`'s demo sets its own",
    ".venv/bin/flask lines": "each acts on requests waiting in a line, by their ids: "
    "tests/lines/test_cli.py runs every one of them on a line it fills",
    ".venv/bin/flask orchestrator emulate": "a server that runs until stopped: the "
    "orchestrator_emulator fixture (tests/fixtures/orchestrator_emulator.py) starts this "
    "command on a free port",
}
# Environment variables the README names that are not settings (``PORTAL_<setting>``).
OTHER_VARIABLES = {
    "PORTAL_SETTINGS",
    "PORTAL_INSTANCE_PATH",
    "PORTAL_ADMIN_PASSWORD",
    "PORTAL_RESEARCHER_PASSWORD",
    "PORTAL_TEST_POSTGRES",
    "RCP_URL",
    "RCP_TOKEN",
    "RCP_CONFIG",
    "PROMETHEUS_MULTIPROC_DIR",
    "FLASK_APP",
}
# Upper-case words the README shows in code that are neither settings nor variables.
OTHER_WORDS = {"ready", "LC_MESSAGES"}


def readme_text() -> str:
    return (ROOT / "README.md").read_text()


def shell_blocks() -> list[str]:
    """The README's ``sh`` blocks, line continuations joined."""
    return [
        block.replace("\\\n", " ")
        for block in re.findall(r"```sh\n(.*?)```", readme_text(), re.DOTALL)
    ]


def shell_commands(block: str) -> list[str]:
    """The commands of ``block``, comments dropped."""
    return [shlex.join(words) for line in block.splitlines() if (words := shlex.split(line, True))]


def block_starting(command: str) -> str:
    (block,) = [block for block in shell_blocks() if shell_commands(block)[:1] == [command]]
    return block


def readme_commands() -> list[list[str]]:
    """Every ``.venv/bin/flask`` command of ``GROUPS`` in the README, optional
    ``[ARGUMENTS]`` left out."""
    commands = []
    for block in shell_blocks():
        for command in shell_commands(block):
            words = shlex.split(command)
            if words[:1] == [".venv/bin/flask"] and words[1:2] and words[1] in GROUPS:
                commands.append([word for word in words if not word.startswith("[")])
    return commands


def settings() -> set[str]:
    """Every setting's name, and the old names of renamed ones (which still work)."""
    from app.config import RENAMED

    names = set(RENAMED)
    exec((ROOT / "config" / "defaults.py").read_text(), {}, scope := {})  # noqa: S102
    names.update(name for name in scope if name.isupper())
    return names


# The README's blocks each test runs whole (by their first command).
RCP_BLOCK = "export RCP_URL=http://127.0.0.1:5000"
MAIL_BLOCK = "export PORTAL_MAIL_SERVER=localhost PORTAL_MAIL_PORT=25"
NOTIFICATIONS_BLOCK = ".venv/bin/flask notifications send --loop"


def how_run(command: str) -> str:
    """Which test runs ``command`` as written, or why none does."""
    for start, reason in NOT_RUN.items():
        if command.startswith(start):
            return f"not run: {reason}"
    words = shlex.split(command)
    if words[:1] == [".venv/bin/flask"] and words[1] in GROUPS:
        return "test_every_readme_command_runs_as_written_after_setup"
    live = (
        shell_commands(block_starting(RCP_BLOCK))
        + shell_commands(block_starting(MAIL_BLOCK))
        + shell_commands(block_starting(NOTIFICATIONS_BLOCK))
    )
    if command in live or command == "make run":
        return "test_make_run_with_the_readme_mail_settings_serves_rcp_and_mails"
    raise AssertionError(f"No test runs the README's `{command}`: run it, or say why in NOT_RUN.")


def test_every_readme_command_is_run_by_a_test_or_says_why_not():
    every = [command for block in shell_blocks() for command in shell_commands(block)]
    assert len(every) > 40
    ways = {command: how_run(command) for command in every}
    assert ways["make run"].startswith("test_")
    assert ways[".venv/bin/rcp templates"].startswith("test_")


def test_the_readme_names_the_commands_this_test_runs():
    named = {tuple(command[1:3]) for command in readme_commands()}
    assert ("users", "create") in named and ("quota", "set") in named
    assert ("catalogue", "import") in named and ("catalogue", "types") in named
    assert ("tokens", "create") in named and ("leases", "set") in named


def test_every_template_a_readme_command_names_is_in_the_starter_catalogue():
    starter = {
        path.stem
        for path in (ROOT / "tosca-catalog").glob("*.yaml")
        if not path.name.endswith(".portal.yaml")
    }
    named = []
    for block in shell_blocks():
        for command in shell_commands(block):
            words = shlex.split(command)
            named += [
                after
                for before, after in zip(words, words[1:], strict=False)
                if before == "--template"
            ]
            if words[:1] == [".venv/bin/rcp"] and words[1:2] in (["template"], ["launch"]):
                named.append(words[2])
    assert {"jupyter-ml-gpu", "kubernetes-cluster"} <= set(named)
    assert set(named) <= starter, f"not in tosca-catalog/: {sorted(set(named) - starter)}"


def test_every_setting_the_readme_names_works_under_that_name():
    known = settings()
    # The generated reference names settings, not variables; the prose and commands name both.
    text = re.sub(
        r"<!-- configuration reference.*?<!-- end of configuration reference -->",
        "",
        readme_text(),
        flags=re.DOTALL,
    )
    # "the setting `PORTAL_BASE_URL`" names a setting, not a variable.
    for name in re.findall(r"setting `([A-Z0-9_]+)`", text):
        assert name in known, f"The README names a setting that does not exist: {name}"
    text = re.sub(r"setting `[A-Z0-9_]+`", "", text)
    shown = set(re.findall(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b", text))
    wrong = []
    for name in sorted(shown):
        if name.startswith("PORTAL_") and name not in OTHER_VARIABLES:
            # A PORTAL_ name is read as an environment variable, and must work as one.
            if name.removeprefix("PORTAL_") not in known:
                wrong.append(name)
        elif name not in known | OTHER_VARIABLES | OTHER_WORDS:
            wrong.append(name)
    assert not wrong, f"The README names what is no setting nor variable: {wrong}"
    assert "PORTAL_PORTAL_BASE_URL" in shown and "PORTAL_MAIL_SERVER" in shown


def base_shell(tmp_path: Path) -> dict:
    """A shell without PORTAL_ settings, for an install in ``tmp_path``."""
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
    return shell


def checkout_for(tmp_path: Path) -> Path:
    """A folder that looks like the checkout (``.venv`` and ``wsgi.py`` where the README
    expects them), to type the README's commands in."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(VENV)
    (checkout / "wsgi.py").symlink_to(ROOT / "wsgi.py")
    shutil.copytree(ROOT / "tosca-catalog" / "types" / "indigo-v4.0.1", checkout / "tosca-types")
    return checkout


@pytest.fixture
def demo_install(tmp_path, closed_port):
    """`make setup` (the steps `make run` takes before serving) into a temporary instance
    folder and catalogue, then a shell without PORTAL_ORCHESTRATOR_URL in the checkout.

    The set-up runs with mail turned on and nothing else, as someone who read only that mails
    need a server and a sender would: `make` gives the portal's address itself."""
    if shutil.which("make") is None:
        pytest.fail("make is missing: the README's commands start with `make run`.")
    shell = base_shell(tmp_path)
    mail_on = {
        "PORTAL_MAIL_SERVER": "127.0.0.1",
        "PORTAL_MAIL_PORT": str(closed_port),
        "PORTAL_MAIL_DEFAULT_SENDER": "Research Cloud Portal <cloud@example.org>",
    }
    setup = subprocess.run(
        ["make", "setup", f"VENV={VENV}"],
        cwd=ROOT,
        env=shell | mail_on,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    return checkout_for(tmp_path), shell


def test_every_readme_command_runs_as_written_after_setup(demo_install):
    checkout, shell = demo_install
    assert "PORTAL_ORCHESTRATOR_URL" not in shell
    for command in readme_commands():
        ended = subprocess.run(
            command, cwd=checkout, env=shell, capture_output=True, text=True, timeout=120
        )
        said = ended.stdout + ended.stderr
        assert ended.returncode == 0, f"{shlex.join(command)} failed:\n{said}"
        assert "did not start" not in said and "Traceback" not in said


def mail_exports(block: str, server: SmtpServer, address: str) -> dict:
    """The variables the README's mail block exports, the mail server's address being the
    test's own."""
    exported = {}
    for command in shell_commands(block):
        words = shlex.split(command)
        if words[0] == "export":
            exported |= dict(word.split("=", 1) for word in words[1:])
    exported |= {"PORTAL_MAIL_SERVER": "127.0.0.1", "PORTAL_MAIL_PORT": str(server.port)}
    return {name: value.replace(README_ADDRESS, address) for name, value in exported.items()}


def run_script(block: str, checkout: Path, shell: dict, address: str):
    return subprocess.run(
        ["bash", "-e", "-c", block.replace(README_ADDRESS, address)],
        cwd=checkout,
        env=shell,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_make_run_with_the_readme_mail_settings_serves_rcp_and_mails(tmp_path):
    """The Notifications section's settings, exported as written, then `make run`; the `rcp`
    section run as one script against it; then the mail commands, to the real SMTP server."""
    mail_block = block_starting(MAIL_BLOCK)
    assert shell_commands(mail_block)[-1] == "make run"
    server = SmtpServer()
    server.controller.start()
    port = free_port()
    address = f"127.0.0.1:{port}"
    shell = base_shell(tmp_path) | mail_exports(mail_block, server, address)
    log = (tmp_path / "make-run.log").open("w")
    running = subprocess.Popen(
        ["make", "run", f"VENV={VENV}", f"PORT={port}"],
        cwd=ROOT,
        env=shell,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        wait_until_serving(running, f"http://{address}/login", tmp_path / "make-run.log")
        checkout = checkout_for(tmp_path)
        for block in (block_starting(RCP_BLOCK), block_starting(NOTIFICATIONS_BLOCK)):
            # The long-running worker is `make run`'s own; the rest is run as written.
            script = "\n".join(
                line for line in block.splitlines() if "notifications send --loop" not in line
            )
            ended = run_script(script, checkout, shell, address)
            assert ended.returncode == 0, f"{script}\n{ended.stdout}\n{ended.stderr}"
            assert "Traceback" not in ended.stderr
        said = ended.stdout
        arrived = server.wait_for(1, timeout=60)
        assert [message["To"] for message in arrived] == ["ops@example.org"]
        assert arrived[0]["From"] == "Research Cloud Portal <cloud@example.org>"
        assert "ops@example.org" in said
    finally:
        os.killpg(running.pid, signal.SIGTERM)
        try:
            running.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(running.pid, signal.SIGKILL)
            running.wait()
        log.close()
        server.controller.stop()


def wait_until_serving(running: subprocess.Popen, url: str, log: Path) -> None:
    """Wait for ``url`` to answer while `make run` sets up and starts (minutes on a busy
    machine); fail with its output when it stops instead."""
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if running.poll() is not None:
            pytest.fail(f"make run stopped ({running.returncode}):\n{log.read_text()}")
        try:
            # A worker's first page can take long on a busy machine: wait for it.
            if requests.get(url, timeout=60).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        time.sleep(1)
    pytest.fail(f"make run did not serve {url}:\n{log.read_text()}")


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
