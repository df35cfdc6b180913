"""The service identity local and LDAP accounts launch with: a client-credentials grant against
the issuer, its token cached until shortly before it expires."""

import socket
import threading
from datetime import datetime, timedelta

import pytest
from flask import Flask, jsonify, request
from werkzeug.serving import make_server

from app.auth.errors import TokenUnavailable
from app.backends.paas.service_identity import (
    ServiceIdentity,
    ServiceTokenRefused,
    ServiceTokenUnavailable,
)
from app.clock import use_clock
from app.errors import ConfigurationError


@pytest.fixture
def issuer():
    """A token endpoint on loopback granting tokens to client "portal" with secret "s3"."""
    app = Flask("issuer")
    grants = []

    @app.get("/.well-known/openid-configuration")
    def discovery():
        app.discoveries += 1
        return jsonify(
            {
                "issuer": app.named_issuer or request.host_url.rstrip("/"),
                "token_endpoint": request.host_url + "token",
            }
        )

    @app.post("/token")
    def token():
        auth = request.authorization
        if not auth or (auth.username, auth.password) != ("portal", "s3"):
            return jsonify({"error": "invalid_client"}), 401
        grants.append(dict(request.form))
        return jsonify({"access_token": f"service-{len(grants)}", "expires_in": app.lifetime})

    app.lifetime, app.named_issuer, app.discoveries = 3600, None, 0
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    app.url, app.grants = f"http://127.0.0.1:{server.server_port}", grants
    yield app
    server.shutdown()
    thread.join(5)


def settings(issuer, secret="s3"):
    return {
        "issuer": issuer.url + "/",
        "client_id": "portal",
        "client_secret": secret,
        "scope": "openid profile offline_access",
    }


def test_a_service_token_is_granted_once_and_reused_until_near_expiry(issuer):
    portal = ServiceIdentity(settings(issuer))
    first = portal.access_token()
    second = portal.access_token()

    assert first == second == "service-1"
    assert issuer.grants == [
        {"grant_type": "client_credentials", "scope": "openid profile offline_access"}
    ]


def test_a_service_token_about_to_expire_is_renewed(issuer):
    issuer.lifetime = 30  # inside the renewal margin

    portal = ServiceIdentity(settings(issuer))
    first = portal.access_token()
    second = portal.access_token()

    assert (first, second) == ("service-1", "service-2")


def test_a_refused_grant_is_a_clear_error(issuer):
    with pytest.raises(TokenUnavailable) as refused:
        ServiceIdentity(settings(issuer, secret="wrong")).access_token()

    assert "could not obtain its own login" in refused.value.message


def test_a_static_token_is_used_as_it_is():
    assert ServiceIdentity({"token": "static"}).access_token() == "static"


def test_a_token_is_renewed_once_the_clock_reaches_the_margin_before_its_expiry(issuer):
    start = datetime(2026, 1, 1, 12, 0)
    now = [start]
    portal = ServiceIdentity(settings(issuer))
    with use_clock(lambda: now[0]):
        first = portal.access_token()
        now[0] = start + timedelta(seconds=3600 - 61)
        still = portal.access_token()
        now[0] = start + timedelta(seconds=3600 - 60)
        renewed = portal.access_token()

    assert (first, still, renewed) == ("service-1", "service-1", "service-2")
    assert issuer.discoveries == 1  # the discovery document is fetched once


def test_a_refused_grant_is_told_apart_from_an_issuer_that_cannot_be_used(issuer):
    with pytest.raises(ServiceTokenRefused):
        ServiceIdentity(settings(issuer, secret="wrong")).access_token()


def test_a_discovery_document_naming_another_issuer_is_not_trusted(issuer):
    issuer.named_issuer = "https://elsewhere.example.org"

    with pytest.raises(ServiceTokenUnavailable) as refused:
        ServiceIdentity(settings(issuer)).access_token()

    assert "could not obtain its own login" in refused.value.message
    assert issuer.grants == []  # the secret never went to the token endpoint


def test_an_issuer_that_does_not_answer_is_a_clear_error():
    with socket.socket() as probe:  # a port free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    unreachable = {"issuer": closed, "client_id": "portal", "client_secret": "s3"}

    with pytest.raises(ServiceTokenUnavailable) as failed:
        ServiceIdentity(unreachable).access_token()

    assert "try again later" in failed.value.message


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"issuer": "https://iam.example.org/", "client_id": "portal"}, "'client_secret'"),
        ({"client_id": "portal", "client_secret": "s3"}, "'issuer'"),
        (
            {"issuer": "http://iam.example.org/", "client_id": "portal", "client_secret": "s3"},
            "must be an https:// URL",
        ),
    ],
)
def test_incomplete_or_unsafe_settings_are_refused_in_words(given, words):
    with pytest.raises(ConfigurationError) as refused:
        ServiceIdentity(given)

    assert words in str(refused.value)
