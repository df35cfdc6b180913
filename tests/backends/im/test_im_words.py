"""IM's words turned into the portal's, without a server: states, reasons, error messages and
the template IM is sent."""

import pytest
import yaml

from app.backends.base import Phase, Refused
from app.backends.im.answers import for_people
from app.backends.im.client import MAX_MESSAGE, auth_lines, trimmed
from app.backends.im.reasons import reason
from app.backends.im.states import UnknownWatch, phase_of
from app.backends.im.template import prepared, tag_in, tag_pattern
from tests.backends.im.conftest import template

# What IM 2.0.0 answered to a template with an invalid output (the middle of its traceback cut).
TRACEBACK_ANSWER = (
    "Error parsing request body: Error parsing TOSCA template: \n"
    "The pre-parsed input failed validation with the following error(s): \n\n"
    '\tValueError: Illegal arguments for function "get_attribute". Unexpected attribute/index '
    'value "0"\n'
    "\t\tFile /srv/im/im_launcher.py, line 37, in <module>\n"
    "\t\t\tmain(Path(sys.argv[1]).resolve(), int(sys.argv[2]))\n"
    "\t\tFile /srv/im/lib/toscaparser/functions.py, line 178, in validate\n"
    "\t\t\tExceptionCollector.appendException(\n" * 40
)
# IM's contextualisation logs, as observed.
NO_PUBLIC_IP_LOG = (
    "2026-11-27 20:59:26.772178: Select master VM\n"
    "2026-11-27 20:59:26.778452: Contextualization Error: No correct Master VM found. Check if "
    "there a linux VM with Public IP.\n"
    "2026-11-27 20:59:26.814272: Error in the ansible installation process: No master VM found.\n"
)
SSH_LOG = (
    "2026-11-27 20:59:34.642040: Wait master VM to have the SSH active.\n"
    "2026-11-27 20:59:44.642416: Contextualization Error: Error Waiting the Master VM to have "
    "the SSH active: Timeout waiting the VM to get a public IP.\n"
)
ANSIBLE_LOG = (
    "TASK [Install JupyterHub] ****************************************************\n"
    'fatal: [vm0]: FAILED! => {"changed": false, "msg": "No package matching"}\n'
)


@pytest.mark.parametrize(
    ("raw", "phase"),
    [
        ("pending", Phase.CREATING),
        ("running", Phase.CREATING),
        ("configured", Phase.READY),
        ("unconfigured", Phase.FAILED),
        ("failed", Phase.FAILED),
        ("stopped", Phase.READY),
        ("off", Phase.READY),
        ("deleting", Phase.DELETING),
        ("unknown", Phase.UNKNOWN),
        ("a word IM never said", Phase.UNKNOWN),
    ],
)
def test_each_im_state_has_a_phase(raw, phase):
    assert phase_of(raw) is phase


def test_unknown_is_believed_only_once_seen_often_enough_for_long_enough():
    now = [0.0]
    watch = UnknownWatch(times=3, seconds=60, clock=lambda: now[0])

    seen = [watch.believe("inf", "unknown") for _ in range(5)]
    now[0] = 61
    later = watch.believe("inf", "unknown")
    watch.believe("inf", "running")
    after_recovery = watch.believe("inf", "unknown")

    assert seen == [False] * 5
    assert later is True
    assert after_recovery is False


def test_an_error_with_a_traceback_is_cut_to_its_first_line_and_the_exception():
    shown = trimmed(TRACEBACK_ANSWER)

    assert shown.startswith("Error parsing request body: Error parsing TOSCA template:")
    assert "Illegal arguments for function" in shown
    assert "File " not in shown and "appendException" not in shown
    assert len(shown) <= MAX_MESSAGE


def test_a_long_error_is_cut_and_secrets_are_masked():
    shown = trimmed("Bad auth line: password = s3cret-value " + "x" * 900, ["s3cret-value"])

    assert "s3cret-value" not in shown and "***" in shown
    assert len(shown) == MAX_MESSAGE


@pytest.mark.parametrize(
    ("log", "words"),
    [
        (NO_PUBLIC_IP_LOG, "public address"),
        (SSH_LOG, "public IP address in time"),
        ("Error connecting with SSH: timed out\n", "SSH"),
        (ANSIBLE_LOG, "“Install JupyterHub”"),
        ("Something IM has never said before\n", "configuring them failed"),
    ],
)
def test_a_failed_contextualisation_gets_a_reason_in_plain_words(app_context, log, words):
    assert words in reason(log)


@pytest.fixture
def app_context():
    from app import create_app
    from tests.conftest import TEST_CONFIG

    with create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": "sqlite://"}).app_context():
        yield


def test_inputs_become_defaults_and_the_tag_goes_into_the_description():
    text = prepared(template("compute.yaml"), {"num_cpus": 4, "mem_size": None}, "abc-1")
    data = yaml.safe_load(text)

    assert data["topology_template"]["inputs"]["num_cpus"] == {"type": "integer", "default": 4}
    assert data["topology_template"]["inputs"]["mem_size"]["default"] == "1 GB"
    assert data["description"].startswith("One machine, normative types only")
    assert tag_in(text) == "abc-1"
    assert data["topology_template"]["outputs"]["node_ip"] == {
        "value": {"get_attribute": ["node", "private_address"]}
    }


def test_an_input_the_template_does_not_declare_is_refused(app_context):
    with pytest.raises(Refused, match="no input named gpus"):
        prepared(template("compute.yaml"), {"gpus": 1}, "abc-1")


@pytest.mark.parametrize("tag", ["", "a.b", "x" * 65, "a b", "a|b", "(.*)"])
def test_a_tag_that_is_not_regex_safe_is_refused(tag):
    with pytest.raises(ValueError):
        prepared(template("compute.yaml"), {}, tag)


def test_a_tag_pattern_does_not_match_a_longer_tag():
    import re

    assert re.search(tag_pattern("first-one"), "portal-deployment:first-one\n")
    assert not re.search(tag_pattern("first-one"), "portal-deployment:first-one-and-more")


@pytest.mark.parametrize(
    "values",
    [
        {"token": "a;b"},
        {"username": "u", "password": "p\\nid = x; type = Dummy"},
        {"username": "u"},
        {},
    ],
)
def test_auth_lines_refuse_values_that_would_break_out_of_their_line(values):
    with pytest.raises(ValueError) as refused:
        auth_lines(["id = dummy; type = Dummy"], **values)

    assert "p\\n" not in str(refused.value)


def test_auth_lines_put_the_caller_first_and_the_clouds_after():
    lines = auth_lines(["id = one; type = OpenStack; host = h"], token="tok")

    assert lines == [
        "id = im; type = InfrastructureManager; token = tok",
        "id = one; type = OpenStack; host = h",
    ]


# What IM 2.0.0 answered, offline, to the starter VM whose types name a playbook on GitHub.
DOWNLOAD_ANSWER = (
    "Error parsing request body: Error downloading the implementation script "
    "'https://raw.githubusercontent.com/indigo-dc/tosca-types/master/artifacts/os/"
    "configure_users.yml': HTTPSConnectionPool(host='raw.githubusercontent.com', port=443): Max "
    "retries exceeded with url: /indigo-dc/tosca-types/master/artifacts/os/configure_users.yml "
    "(Caused by NameResolutionError(\"HTTPSConnection(host='raw.githubusercontent.com', "
    "port=443): Failed to resolve 'raw.githubusercontent.com' ([Errno -3] Temporary failure in "
    'name resolution)"))'
)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (
            DOWNLOAD_ANSWER,
            "The Infrastructure Manager could not download https://raw.githubusercontent.com/"
            "indigo-dc/tosca-types/master/artifacts/os/configure_users.yml, a script the "
            "template's types name, so it made nothing.",
        ),
        (trimmed(TRACEBACK_ANSWER), "The Infrastructure Manager could not read the template"),
        (
            "KeyError: 'disk.0.image.url'",
            "The Infrastructure Manager answered with an error in its own program's words.",
        ),
        ("Access to this infrastructure not granted.", "Access to this infrastructure not"),
    ],
)
def test_ims_error_answers_are_said_to_people_without_its_program_text(answer, words, app):
    with app.test_request_context():
        said = for_people(trimmed(answer))

    assert said.startswith(words)
    for program_text in ("ConnectionPool", "Errno", "Error parsing", "KeyError", "File "):
        assert program_text not in said
