"""rcp, run as a subprocess against a running portal (gunicorn and the sync worker, on the demo
orchestrator): the whole researcher's round, scripts launching thirty at once, exit codes and
its settings."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from tests.api.live import RCP

ALL = ("deployments:read", "deployments:write", "templates:read", "quota:read")


def test_a_researcher_launches_waits_reads_the_address_and_password_and_deletes(live_portal):
    token = live_portal.token_from_account_page(ALL)
    code, templates, _err = live_portal.rcp("templates", token=token)
    assert code == 0 and "secret-notebook" in templates
    code, inputs, _err = live_portal.rcp("template", "secret-notebook", "--json", token=token)
    assert code == 0
    assert {i["name"] for i in inputs["inputs"]} >= {"num_cpus", "jupyter_password"}

    code, ready, err = live_portal.rcp(
        "launch",
        "secret-notebook",
        "--name",
        "weekly",
        "--set",
        "num_cpus=2",
        "--wait",
        "--interval",
        "0.2",
        "--timeout",
        "120",
        "--json",
        token=token,
    )
    assert code == 0, err
    assert ready["status"] == "CREATE_COMPLETE"
    assert ready["main_link"].startswith("https://")
    deployment_id = str(ready["id"])

    code, shown, _err = live_portal.rcp("show", deployment_id, token=token)
    assert code == 0 and ready["main_link"] in shown and "CREATE_COMPLETE" in shown
    code, password, _err = live_portal.rcp("secret", deployment_id, "jupyter_password", token=token)
    assert code == 0 and len(password.strip()) >= 12

    # Its template has a lease policy (see live.LEASE_POLICY): one extend of an hour.
    ends = ready["lease"]["ends_at"]
    assert ready["lease"]["state"] == "running" and ready["lease"]["can_extend"]
    code, _out, err = live_portal.rcp("extend", deployment_id, "--hours", "5", token=token)
    assert code == 3 and "adds 1 hour" in err
    code, extended, err = live_portal.rcp("extend", deployment_id, "--hours", "1", token=token)
    assert code == 0, err
    code, after, _err = live_portal.rcp("show", deployment_id, "--json", token=token)
    new_end = after["lease"]["ends_at"]
    assert new_end > ends and f"now ends {new_end}" in extended
    assert after["lease"]["extends_left"] == 0
    code, _out, err = live_portal.rcp("extend", deployment_id, token=token)
    assert code == 3 and "no extends left" in err
    code, listed, _err = live_portal.rcp("list", "--status", "ready", "--json", token=token)
    assert [item["id"] for item in listed["items"]] == [ready["id"]]

    code, _out, err = live_portal.rcp(
        "delete", deployment_id, "--wait", "--interval", "0.2", "--timeout", "120", token=token
    )
    assert code == 0, err
    code, _out, err = live_portal.rcp("show", deployment_id, token=token)
    assert code == 4 and "no such deployment" in err


def test_thirty_identical_launches_with_idempotency_keys_never_launch_thirty_one(live_portal):
    token = live_portal.token_from_account_page(ALL)

    def launch(index: int, attempt: int):
        return live_portal.rcp(
            "launch",
            "test-notebook",
            "--name",
            f"course-{index:02d}",
            "--set",
            "jupyter_password=course-pass-1",
            "--key",
            f"course-{index:02d}",
            "--json",
            token=token,
        )

    # Every launch twice at once, as a script retrying after a lost answer would.
    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(lambda a: launch(*a), [(i, n) for i in range(30) for n in (1, 2)]))
    assert all(code == 0 for code, _out, _err in outcomes), [e for c, _o, e in outcomes if c]
    ids = {out["id"] for _code, out, _err in outcomes}
    assert len(ids) == 30
    code, listed, _err = live_portal.rcp("list", "--size", "100", "--json", token=token)
    assert listed["total"] == 30


def test_exit_codes_tell_refused_not_found_and_not_available_apart(live_portal):
    token = live_portal.token_from_account_page(("deployments:read",))
    code, _out, err = live_portal.rcp("launch", "test-notebook", token=token)
    assert code == 3 and "deployments:write" in err
    code, _out, err = live_portal.rcp("show", "999999", token=token)
    assert code == 4
    code, _out, err = live_portal.rcp("extend", "1", "--hours", "4", token=token)
    assert code == 3 and "deployments:write" in err
    code, _out, err = live_portal.rcp("list", token="rcp_wrong")
    assert code == 3 and "not valid" in err
    writer = live_portal.token_from_account_page(ALL)
    code, problem, err = live_portal.rcp(
        "launch", "test-notebook", "--set", "num_cpus=many", "--json", token=writer
    )
    assert code == 3 and "num_cpus" in err and "jupyter_password" in err
    assert problem["type"].endswith("invalid-parameters")


def _run_with_file(folder, mode: int, env_token: str | None, url: str, token: str):
    config = folder / ".config" / "rcp" / "config.ini"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[portal]\nurl = {url}\ntoken = {token}\n")
    config.chmod(mode)
    env = {"PATH": os.environ["PATH"], "HOME": str(folder)}
    if env_token:
        env.update(RCP_URL=url, RCP_TOKEN=env_token)
    return subprocess.run([RCP, "list"], env=env, capture_output=True, text=True, timeout=60)


def test_the_config_file_must_be_private_and_the_environment_wins(live_portal, tmp_path):
    token = live_portal.token_from_account_page(ALL)
    private = _run_with_file(tmp_path, 0o600, None, live_portal.url, token)
    assert private.returncode == 0, private.stderr
    shared = _run_with_file(tmp_path, 0o644, None, live_portal.url, token)
    assert shared.returncode == 2 and "chmod 600" in shared.stderr
    # RCP_TOKEN wins over the file's token (a wrong one here, so the answer tells).
    overridden = _run_with_file(tmp_path, 0o600, "rcp_wrong", live_portal.url, token)
    assert overridden.returncode == 3


def test_rcp_is_installed_as_a_console_script():
    assert os.path.exists(RCP)
    result = subprocess.run([RCP, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "Exit codes" in result.stdout
    assert sys.executable
