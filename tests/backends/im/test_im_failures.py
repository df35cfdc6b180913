"""When IM is down, slow or failing, and what never leaves the portal: IM's credentials."""

import logging

import pytest

from app.backends.base import NotAllowed, Unavailable, Unreachable
from app.backends.im.backend import ImBackend
from app.backends.im.client import ImClient, auth_lines
from tests.backends.im.conftest import wait_until_settled
from tests.backends.im.test_im_backend import create, refused_create
from tests.fixtures.im_server import DUMMY_CLOUD


@pytest.fixture
def faulty(im_server):
    relay = im_server.fault_relay()
    yield relay
    relay.close()


def test_an_im_that_is_not_running_is_unreachable(make_im_backend, faulty):
    host, port = faulty.address
    faulty.close()  # nothing listens there any more, as when IM is stopped
    backend = make_im_backend(url=f"http://{host}:{port}")

    with pytest.raises(Unreachable):
        backend.list_mine()
    with pytest.raises(Unreachable):
        create(backend, "compute.yaml")


def test_a_slow_im_is_unavailable_not_unreachable(make_im_backend, faulty):
    host, port = faulty.address
    faulty.fault, faulty.delay = "delay", 1.0
    backend = make_im_backend(url=f"http://{host}:{port}", timeout=(1, 0.3))

    with pytest.raises(Unavailable) as slow:
        backend.list_mine()

    assert not isinstance(slow.value, Unreachable)


@pytest.mark.parametrize("fault", ["error", "drop"])
def test_an_im_answering_500_or_dropping_the_connection_is_unavailable(
    make_im_backend, faulty, fault
):
    host, port = faulty.address
    faulty.fault = fault
    backend = make_im_backend(url=f"http://{host}:{port}")

    with pytest.raises(Unavailable) as failing:
        backend.state("0c5f0e4a-0000-11f1-8000-000000000000")

    assert not isinstance(failing.value, Unreachable)


def test_the_relay_passes_calls_through_when_told_no_fault(make_im_backend, faulty):
    host, port = faulty.address

    assert make_im_backend(url=f"http://{host}:{port}").list_mine() == []


def test_credentials_never_reach_a_log_or_an_error(im_server, quiet_im, faulty, caplog):
    password, cloud_secret = "pw-Do-Not-Show-42", "cloud-Token-Do-Not-Show-7"
    clouds = [f"{DUMMY_CLOUD}; password = {cloud_secret}"]
    lines = auth_lines(clouds, username="secretive", password=password)
    stranger = auth_lines(clouds, username="stranger", password=password + "x")
    host, port = faulty.address
    said: list[str] = []
    caplog.set_level(logging.DEBUG)

    with ImBackend(ImClient(quiet_im.url, lines)) as refusing:
        # Refused first, while that IM parses nothing else (see ``quiet_im``).
        said.append(str(refused_create(refusing, "url-import.yaml")))
    with ImBackend(ImClient(im_server.url, lines)) as backend:
        made = create(backend, "compute.yaml")
        said.append(repr(backend.client))
        for expected, call in (
            (
                NotAllowed,
                lambda: ImBackend(ImClient(im_server.url, stranger)).state(made.backend_id),
            ),
            (Unreachable, lambda: ImBackend(ImClient("http://127.0.0.1:9", lines)).list_mine()),
        ):
            with pytest.raises(expected) as error:
                call()
            said += [str(error.value), repr(error.value), repr(error.value.__cause__)]
        faulty.fault = "error"
        with pytest.raises(Unavailable) as error:
            ImBackend(ImClient(f"http://{host}:{port}", lines)).list_mine()
        said.append(str(error.value))
        wait_until_settled(backend, made.backend_id)
        backend.delete(made.backend_id)

    shown = "\n".join([*said, caplog.text])
    assert isinstance(error.value, Unavailable)
    for secret in (password, cloud_secret, "InfrastructureManager", "\\n"):
        assert secret not in shown


def test_another_identitys_call_is_not_allowed_with_a_short_message(im_backend, im_server):
    made = create(im_backend, "compute.yaml")
    stranger = ImBackend(
        ImClient(im_server.url, auth_lines([DUMMY_CLOUD], username="someone", password="else"))
    )

    with stranger, pytest.raises(NotAllowed) as refused:
        stranger.state(made.backend_id)

    assert refused.value.status_code == 403
    assert "not granted" in refused.value.message


def test_traffic_to_the_dummy_address_cannot_leave_the_namespace(im_server):
    links = im_server.in_namespace("ip", "-o", "link", "show").stdout.splitlines()
    routes = im_server.in_namespace("ip", "route", "show").stdout.strip()
    outward = im_server.in_namespace("ip", "route", "get", "192.0.2.1")
    to_dummy = im_server.in_namespace("ip", "route", "get", "10.0.0.1").stdout

    assert [line.split(":")[1].strip() for line in links] == ["lo"]
    assert routes == ""
    assert outward.returncode != 0 and "unreachable" in outward.stderr.lower()
    assert "dev lo" in to_dummy and "local 10.0.0.1" in to_dummy
