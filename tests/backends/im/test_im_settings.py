"""The IM settings: read like the others (PORTAL_* included), checked at start, and turned into
a backend for the service identity or a person's token."""

import pytest

from app import create_app
from app.backends.im.backend import im_backend
from app.errors import ConfigurationError
from tests.conftest import TEST_CONFIG

IM = {
    "IM_URL": "https://im.example.org",
    "IM_CLOUDS": "id = one; type = OpenStack; host = https://keystone.example.org\n"
    "id = two; type = Dummy",
    "IM_USERNAME": "portal",
    "IM_PASSWORD": "service-secret",
}


def make(tmp_path, **settings):
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": "sqlite://", **settings}
    return create_app(config, instance_path=str(tmp_path / "instance"))


def test_im_settings_come_from_portal_environment_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTAL_IM_URL", "https://im.example.org")
    monkeypatch.setenv("PORTAL_IM_TIMEOUT", "[2, 20]")
    monkeypatch.setenv("PORTAL_IM_CLOUDS", '["id = two; type = Dummy"]')

    app = make(tmp_path)

    assert app.config["IM_URL"] == "https://im.example.org"
    assert app.config["IM_TIMEOUT"] == [2, 20]
    assert app.config["IM_CLOUDS"] == ["id = two; type = Dummy"]


@pytest.mark.parametrize("timeout", [(0, 30), "slow", (1, 2, 3), (True, 3)])
def test_a_malformed_im_timeout_stops_the_start(tmp_path, timeout):
    with pytest.raises(ConfigurationError, match="IM_TIMEOUT"):
        make(tmp_path, IM_TIMEOUT=timeout)


def test_an_im_url_without_a_cloud_stops_the_start(tmp_path):
    with pytest.raises(ConfigurationError, match="IM_CLOUDS"):
        make(tmp_path, IM_URL="https://im.example.org")


def test_the_service_identity_and_a_persons_token_give_their_own_lines(tmp_path):
    app = make(tmp_path, **IM)

    with app.app_context():
        service = im_backend()
        person = im_backend(access_token="eyJ.person.token")

    assert service.client.timeout == (5.0, 30.0)
    assert service.client._header == (
        "id = im; type = InfrastructureManager; username = portal; password = service-secret"
        "\\nid = one; type = OpenStack; host = https://keystone.example.org"
        "\\nid = two; type = Dummy"
    )
    assert person.client._header.startswith(
        "id = im; type = InfrastructureManager; token = eyJ.person.token\\n"
    )
    assert "service-secret" not in repr(service.client)


def test_a_picked_site_sends_only_its_cloud_line(tmp_path):
    app = make(tmp_path, **IM)
    with app.app_context():
        service = im_backend()
    assert service.client.for_cloud("two")._header == (
        "id = im; type = InfrastructureManager; username = portal; password = service-secret"
        "\\nid = two; type = Dummy"
    )
    assert service.capabilities().site_choice
    with pytest.raises(ValueError):
        service.client.for_cloud("three")


def test_a_site_im_does_not_know_is_refused_in_words_and_nothing_is_sent(tmp_path):
    from app.backends.base import CreateRequest, Refused

    app = make(tmp_path, **IM)
    with app.test_request_context(), pytest.raises(Refused, match="no cloud three set up"):
        im_backend().create(CreateRequest("tosca_definitions_version: x", {}, "t", site="three"))
