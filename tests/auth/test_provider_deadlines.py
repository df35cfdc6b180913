"""Every call to an identity provider (discovery, token refresh, userinfo, key set, the service
identity's grant) ends by its overall deadline and reads no more than its cap, against a real
loopback provider that dribbles, hangs or sends without end; the portal's words stay those of
a provider that does not answer."""

import json
import time

import pytest

from app import remote
from app.auth import oidc
from app.auth.errors import ProviderError
from app.backends.paas.service_identity import ServiceIdentity, ServiceTokenUnavailable
from tests.fixtures.slow_server import slow_server

# Seconds to connect and to read: each answer has 1 s in all.
TIMEOUT = 0.5
ENDED = 10.0


def _provider(url: str) -> dict:
    return {
        "name": "slow",
        "label": "Slow IAM",
        "issuer": url,
        "client_id": "portal",
        "client_secret": "s3",
        "timeout": TIMEOUT,
    }


def _discovery(server) -> None:
    """Answer the discovery document at once; every endpoint it names answers badly."""
    document = {
        "issuer": server.url,
        "authorization_endpoint": server.url + "/authorize",
        "token_endpoint": server.url + "/token",
        "userinfo_endpoint": server.url + "/userinfo",
        "jwks_uri": server.url + "/jwks",
    }
    server.answers["/.well-known/openid-configuration"] = json.dumps(document).encode()


@pytest.mark.parametrize("behaviour", ["dribble", "dribble-headers", "hang"])
def test_a_login_at_a_provider_whose_discovery_dribbles_ends_with_a_clear_message(
    make_app, behaviour
):
    with slow_server(behaviour) as server:
        app = make_app(OIDC_PROVIDERS=[_provider(server.url)])
        client = app.test_client()
        started = time.monotonic()
        response = client.get("/login/oidc/slow")
        took = time.monotonic() - started
        page = client.get("/login").get_data(as_text=True)
    assert response.headers["Location"] == "/login" and took < ENDED
    assert "The identity provider Slow IAM is not answering right now." in page


def test_a_token_refresh_at_a_provider_that_dribbles_ends_as_not_answering(make_app):
    with slow_server("dribble") as server:
        _discovery(server)
        app = make_app(OIDC_PROVIDERS=[_provider(server.url)])
        started = time.monotonic()
        with app.test_request_context(), pytest.raises(ProviderError) as refused:
            oidc.refresh_tokens("slow", "a-refresh-token")
    assert server.calls == 1 and time.monotonic() - started < ENDED
    assert "Slow IAM is not answering right now" in refused.value.message


@pytest.mark.parametrize(
    ("behaviour", "failure"),
    [("dribble", remote.AnswerTooSlow), ("endless", remote.AnswerTooLarge)],
)
def test_userinfo_and_the_key_set_end_by_their_deadline_and_cap(make_app, behaviour, failure):
    with slow_server(behaviour) as server:
        _discovery(server)
        app = make_app(OIDC_PROVIDERS=[_provider(server.url)])
        with app.test_request_context():
            client = oidc.ready_client(oidc.find_provider("slow"))
            started = time.monotonic()
            with pytest.raises(failure):
                client.userinfo(token={"access_token": "a-token", "token_type": "Bearer"})
            with pytest.raises(failure):
                client.fetch_jwk_set()
    assert server.calls == 2 and time.monotonic() - started < 2 * ENDED


def test_the_service_identitys_grant_at_an_issuer_that_dribbles_ends_unavailable(app):
    with slow_server("dribble") as server:
        _discovery(server)
        identity = ServiceIdentity(
            {"issuer": server.url, "client_id": "portal", "client_secret": "s3"},
            timeout=(TIMEOUT, TIMEOUT),
        )
        started = time.monotonic()
        with app.test_request_context(), pytest.raises(ServiceTokenUnavailable):
            identity.access_token()
    assert server.calls == 1 and time.monotonic() - started < ENDED
