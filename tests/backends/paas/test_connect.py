"""Which orchestrator a client reaches: the configured one over the network, or the demo in
this process, through the same client and its per-thread copies."""

import pytest
from flask import Flask

from app.backends.paas import connect
from app.backends.paas.connect import Caller
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE


def portal(tmp_path, url: str) -> Flask:
    """The little of a portal that picking an orchestrator reads."""
    app = Flask("portal", instance_path=str(tmp_path / "instance"))
    app.config.update(
        ORCHESTRATOR_URL=url,
        SECRET_KEY="portal-secret",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=3,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=20,
    )
    return app


def no_token():
    pytest.fail("the demo signs its own tokens; the caller's are never asked for")


def test_the_demo_is_reached_in_process_as_the_caller_with_a_token_the_portal_signs(tmp_path):
    ada = Caller("ldap", "ada", ("physics",))
    with portal(tmp_path, "demo").app_context():
        assert connect.trusts_every_login()
        with connect.client_for(ada, no_token, (2, 2)) as client:
            made = client.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")
            copy = client.with_token(client.token_provider())

        with copy:  # a copy for another thread reaches the same emulator as ada
            assert [d["uuid"] for d in copy.list_deployments()] == [made["uuid"]]
        issuer = made["createdBy"]["issuer"]
        assert made["createdBy"]["subject"] == "ada"
        assert connect.login_provider_named_by(issuer) == "ldap"
        assert connect.login_provider_named_by("https://iam.example.org/") is None


def test_the_demo_tells_people_apart_by_their_login(tmp_path):
    with portal(tmp_path, "demo").app_context():
        with connect.client_for(Caller("ldap", "ada"), no_token, (2, 2)) as ada:
            ada.create_deployment(TEMPLATE, PARAMETERS)
        with connect.client_for(Caller("local", "ada"), no_token, (2, 2)) as namesake:
            assert namesake.list_deployments() == []


def test_a_configured_orchestrator_is_called_over_the_network_with_the_callers_tokens(
    tmp_path, emulator
):
    given = []

    def alice_token():
        given.append("token-alice")
        return "token-alice"

    with portal(tmp_path, emulator.url).app_context():
        assert not connect.trusts_every_login()
        with connect.client_for(Caller("iam", "alice-sub"), alice_token, (2, 2)) as client:
            made = client.create_deployment(TEMPLATE, PARAMETERS, user_group="physics")
            with client.with_token("token-bob") as bob:  # a copy calls with the token it got
                assert bob.list_deployments() == []
        assert given and client.base_url == emulator.url
        assert made["createdBy"]["subject"] == "alice-sub"
        assert connect.login_provider_named_by("demo:ldap") is None
