"""The service identity local and LDAP accounts launch with: a client-credentials grant against
the issuer, its token cached until shortly before it expires."""

import threading

import pytest
from flask import Flask, jsonify, request
from werkzeug.serving import make_server

from app.auth.errors import TokenUnavailable
from app.deployments import identity


@pytest.fixture
def issuer():
    """A token endpoint on loopback granting tokens to client "portal" with secret "s3"."""
    app = Flask("issuer")
    grants = []

    @app.get("/.well-known/openid-configuration")
    def discovery():
        return jsonify(
            {"issuer": request.host_url.rstrip("/"), "token_endpoint": request.host_url + "token"}
        )

    @app.post("/token")
    def token():
        auth = request.authorization
        if not auth or (auth.username, auth.password) != ("portal", "s3"):
            return jsonify({"error": "invalid_client"}), 401
        grants.append(dict(request.form))
        return jsonify({"access_token": f"service-{len(grants)}", "expires_in": app.lifetime})

    app.lifetime = 3600
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    app.url, app.grants = f"http://127.0.0.1:{server.server_port}", grants
    yield app
    server.shutdown()
    thread.join(5)


@pytest.fixture(autouse=True)
def no_cached_tokens(monkeypatch):
    monkeypatch.setattr(identity, "_service_tokens", {})


def settings(issuer, secret="s3"):
    return {
        "issuer": issuer.url + "/",
        "client_id": "portal",
        "client_secret": secret,
        "scope": "openid profile offline_access",
    }


def test_a_service_token_is_granted_once_and_reused_until_near_expiry(issuer):
    first = identity.service_token(settings(issuer))
    second = identity.service_token(settings(issuer))

    assert first == second == "service-1"
    assert issuer.grants == [
        {"grant_type": "client_credentials", "scope": "openid profile offline_access"}
    ]


def test_a_service_token_about_to_expire_is_renewed(issuer):
    issuer.lifetime = 30  # inside the renewal margin

    first = identity.service_token(settings(issuer))
    second = identity.service_token(settings(issuer))

    assert (first, second) == ("service-1", "service-2")


def test_a_refused_grant_is_a_clear_error(issuer):
    with pytest.raises(TokenUnavailable) as refused:
        identity.service_token(settings(issuer, secret="wrong"))

    assert "could not obtain its own login" in refused.value.message


def test_a_static_token_is_used_as_it_is():
    assert identity.service_token({"token": "static"}) == "static"
