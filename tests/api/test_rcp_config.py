"""rcp's config file holds a token: however it is malformed, what rcp says names the line and
the kind of mistake, never the line itself."""

import os
import subprocess

import pytest

from tests.api.live import RCP

SECRET = "rcp_ThisMustNeverBePrinted0123456789"

MALFORMED = {
    "a line without =": f"[portal]\nurl = https://portal.example.org\ntoken {SECRET}\n",
    "no section": f"token = {SECRET}\n",
    "a setting twice": f"[portal]\ntoken = {SECRET}\ntoken = {SECRET}x\n",
    "the token on the url line": f"[portal]\nurl = {SECRET}\ntoken = {SECRET}\n",
}


def run_rcp(folder, text: str):
    config = folder / "config.ini"
    config.write_text(text)
    config.chmod(0o600)
    env = {"PATH": os.environ["PATH"], "HOME": str(folder), "RCP_CONFIG": str(config)}
    return subprocess.run([RCP, "list"], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_config_file_is_refused_without_echoing_any_line(tmp_path, text):
    result = run_rcp(tmp_path, text)

    assert result.returncode == 2
    assert SECRET not in result.stderr + result.stdout
    assert str(tmp_path / "config.ini") in result.stderr


def test_the_refusal_names_the_line_and_the_mistake(tmp_path):
    result = run_rcp(tmp_path, MALFORMED["a line without ="])

    assert "a line that is not name = value, line 3" in result.stderr
