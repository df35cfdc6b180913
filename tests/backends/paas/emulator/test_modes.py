"""How the emulator is started (command line, in-process, demo) and how the portal refuses to
fall back to it silently."""

import re

import click
import pytest
import requests

from app import create_app
from app.backends.paas.emulator.cli import parse_token
from app.backends.paas.emulator.core import create_emulator, emulator_of
from app.backends.paas.emulator.rules import Identity
from app.errors import ConfigurationError
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE
from tests.conftest import TEST_CONFIG
from tests.fixtures.orchestrator_emulator import start_orchestrator_emulator

BANNER = "Demo orchestrator: nothing real is deployed"


@pytest.fixture(autouse=True)
def no_orchestrator_in_the_environment(monkeypatch):
    monkeypatch.delenv("PORTAL_ORCHESTRATOR_URL", raising=False)


def test_without_an_orchestrator_the_portal_refuses_to_start(tmp_path):
    config = {key: value for key, value in TEST_CONFIG.items() if key != "ORCHESTRATOR_URL"}
    with pytest.raises(ConfigurationError, match="No orchestrator is configured") as raised:
        create_app(config, instance_path=str(tmp_path))
    assert "\n" not in str(raised.value) and "PORTAL_ORCHESTRATOR_URL" in str(raised.value)


def test_development_mode_uses_the_demo_when_no_orchestrator_is_configured(tmp_path):
    config = {key: value for key, value in TEST_CONFIG.items() if key != "ORCHESTRATOR_URL"}
    app = create_app({**config, "DEVELOPMENT": True}, instance_path=str(tmp_path))
    assert app.config["ORCHESTRATOR_URL"] == "demo"


def test_every_page_says_when_the_demo_orchestrator_is_in_use(make_app):
    demo = make_app().test_client().get("/login").get_data(as_text=True)
    real = make_app(ORCHESTRATOR_URL="https://orchestrator.example.org").test_client()
    assert BANNER in demo
    assert BANNER not in real.get("/login").get_data(as_text=True)


def test_with_an_im_beside_the_demo_the_banner_says_which_backend_is_the_demo(make_app):
    app = make_app(IM_URL="https://im.example.org", IM_CLOUDS="id = one; type = Dummy")
    page = app.test_client().get("/login").get_data(as_text=True)

    assert f">{BANNER}<" not in page
    assert (
        "Demo orchestrator: nothing real is deployed by the PaaS Orchestrator; templates that "
        "run on the Infrastructure Manager are deployed for real."
    ) in page
    with app.test_request_context():
        from app.backends.registry import demo_notice

        assert demo_notice("paas") == BANNER
        assert demo_notice("im") is None


@pytest.mark.parametrize(
    ("text", "token", "identity"),
    [
        ("t1=ada@https://iam.test/", "t1", Identity("ada", "https://iam.test/", ())),
        (
            "t2=ada@https://iam.test/:physics,chem",
            "t2",
            Identity("ada", "https://iam.test/", ("physics", "chem")),
        ),
        ("t3=ada@https://iam.test:8443/", "t3", Identity("ada", "https://iam.test:8443/", ())),
        ("t4=ada@https://iam.test:8443:g", "t4", Identity("ada", "https://iam.test:8443", ("g",))),
        ("t5=ada@local", "t5", Identity("ada", "local", ())),
    ],
)
def test_command_line_tokens_name_their_owner_and_groups(text, token, identity):
    assert parse_token(text) == (token, identity)


@pytest.mark.parametrize("text", ["no-equals", "t=no-at-sign", "=ada@iss", "t=@iss", "t=ada@"])
def test_malformed_command_line_tokens_are_refused(text):
    with pytest.raises(click.BadParameter):
        parse_token(text)


def test_the_emulate_command_is_part_of_the_portals_cli(make_app):
    result = make_app().test_cli_runner().invoke(args=["orchestrator", "emulate", "--help"])
    assert result.exit_code == 0
    assert "--lose-create-response" in result.output and "--control-secret" in result.output


def test_command_line_options_set_tokens_rules_progress_and_faults():
    emulator = start_orchestrator_emulator(
        "--token",
        "tok=ada@https://iam.test/:physics",
        "--group-rule",
        "given",
        "--complete-after-polls",
        "1",
        "--fault-path",
        "GET /info",
        "--error-rate",
        "1",
        "--error-status",
        "502",
    )
    try:
        headers = {"Authorization": "Bearer tok"}
        created = requests.post(
            f"{emulator.url}/deployments",
            headers=headers,
            timeout=5,
            json={"template": TEMPLATE, "parameters": PARAMETERS},
        )
        assert created.status_code == 201  # no userGroup needed under the "given" rule
        uuid = created.json()["uuid"]
        polled = requests.get(f"{emulator.url}/deployments/{uuid}", headers=headers, timeout=5)
        assert polled.json()["status"] == "CREATE_COMPLETE"
        assert requests.get(f"{emulator.url}/info", headers=headers, timeout=5).status_code == 502
    finally:
        emulator.stop()


def _normalised(value, uuid_names: dict):
    """``value`` with uuids, times and hosts replaced by stable placeholders."""
    text = value if isinstance(value, str) else repr(value)
    for uuid, name in uuid_names.items():
        text = text.replace(uuid, name)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d\+0000", "<time>", text)
    text = re.sub(r"http://[^/'\"]+/", "<host>/", text)
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)
    return re.sub(
        r"203\.0\.113\.\d+|EMULATED-KEY-NOT-USABLE-\w+|vm-\w{8}|infrastructure-\w{8}",
        "<made-up>",
        text,
    )


def _scenario(call, set_status) -> list[str]:
    """The same conversation, through ``call(method, path, json=None) -> (status, body)``."""
    seen, names = [], {}
    status, created = call(
        "POST",
        "/deployments",
        {
            "template": TEMPLATE,
            "parameters": PARAMETERS,
            "userGroup": "physics",
            "keepLastAttempt": False,
        },
    )
    names[created["uuid"]] = "<uuid>"
    uuid = created["uuid"]
    steps = [
        ("GET", f"/deployments/{uuid}", None),
        ("PUT", f"/deployments/{uuid}", {"template": TEMPLATE}),
        ("POST", "/deployments", {"template": TEMPLATE, "colour": "blue"}),
        ("GET", "/deployments?size=1", None),
        ("GET", f"/deployments/{uuid}/resources", None),
        ("GET", f"/deployments/{uuid}/log", None),
    ]
    seen.append(_normalised((status, created), names))
    for index, (method, path, body) in enumerate(steps):
        if index == 1:
            set_status(uuid, "CREATE_COMPLETE")
        seen.append(_normalised(call(method, path, body), names))
    return seen


def test_in_process_and_server_modes_answer_alike(orchestrator_emulator):
    orchestrator_emulator.add_token("token-alice", "alice-sub", "https://iam.test/", ["physics"])
    headers = {"Authorization": "Bearer token-alice"}

    def over_http(method, path, body=None):
        answer = requests.request(
            method, orchestrator_emulator.url + path, json=body, headers=headers, timeout=5
        )
        return answer.status_code, answer.json() if answer.content.startswith(b"{") else answer.text

    app = create_emulator(lambda token: None, complete_after_polls=None, group_rule="infn")
    emulator_of(app).tokens["token-alice"] = Identity(
        "alice-sub", "https://iam.test/", ("physics",)
    )
    http = app.test_client()

    def in_process(method, path, body=None):
        answer = http.open(path, method=method, json=body, headers=headers)
        return answer.status_code, answer.json if answer.is_json else answer.get_data(as_text=True)

    served = _scenario(over_http, orchestrator_emulator.set_status)
    local = _scenario(in_process, emulator_of(app).set_status)
    assert len(served) == len(local)
    for over_http_answer, in_process_answer in zip(served, local, strict=True):
        assert over_http_answer == in_process_answer
    assert 'Unrecognized field "colour"' in served[3]


def test_every_fault_can_be_switched_on_from_the_command_line(tmp_path):
    store = tmp_path / "emulated.sqlite"
    emulator = start_orchestrator_emulator(
        "--manual",
        "--latency",
        "0.01",
        "--hang",
        "--lose-create-response",
        "504",
        "--no-error-body",
        "--gateway-errors",
        "--fail-creates",
        "--fail-next-creates",
        "2",
        "--fault-path",
        "POST /deployments",
        "--store",
        str(store),
    )
    try:
        faults = emulator._control("GET", "faults")
        settings = emulator._control("GET", "settings")
    finally:
        emulator.stop()
    assert faults == {
        "latency": 0.01,
        "error_rate": 0.0,
        "error_status": 500,
        "error_body": False,
        "gateway_errors": True,
        "hang": True,
        "lose_create_response": "504",
        "fail_creates": True,
        "fail_next_creates": 2,
        "down": False,
        "paths": ["POST /deployments"],
    }
    assert settings["complete_after_polls"] is None and settings["complete_after_seconds"] is None
    assert store.exists()
