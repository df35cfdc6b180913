"""The orchestrator as a backend declares its credentials, so that nothing it says shows one:
the service identity's client secret and fixed token (ORCHESTRATOR_SERVICE_IDENTITY) and every
token its client sent are masked in a deployment's reason and log as read through the portal's
one door for backends, and in the words of an error whose body echoes the request."""

import json
import threading

import pytest
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from app.backends.base import MASK
from app.backends.paas.backend import PaasBackend
from app.backends.paas.connect import client_for, service_secrets
from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.errors import OrchestratorError
from app.deployments import said
from tests.backends.paas.conftest import PARAMETERS, TEMPLATE

CLIENT_SECRET = "portal-client-secret-4242"
SERVICE_TOKEN = "fixed-service-token-7777"


def _backend(token: str) -> PaasBackend:
    """The orchestrator as the backend builds it for the service identity, calling with
    ``token`` (no identity provider here to grant one)."""
    return PaasBackend(client_for(None, lambda: token, (2, 2)), service_secrets())


@pytest.fixture
def portal(make_app, emulator):
    return make_app(
        ORCHESTRATOR_URL=emulator.url,
        ORCHESTRATOR_SERVICE_IDENTITY={
            "issuer": "https://iam.test/",
            "client_id": "portal",
            "client_secret": CLIENT_SECRET,
        },
    )


def test_a_reason_and_a_log_naming_the_token_and_the_client_secret_show_neither(
    portal, emulator, alice
):
    made = alice.create_deployment(TEMPLATE, PARAMETERS)
    leak = f"Keystone refused token-alice; the portal's client secret is {CLIENT_SECRET}"
    emulator_of(emulator.app).set_status(made["uuid"], "CREATE_FAILED", leak)

    with portal.app_context(), _backend("token-alice") as backend:
        assert CLIENT_SECRET in backend.credentials()
        state = said.state(backend.state(made["uuid"]), backend.credentials())
        log = said.log(backend.log(made["uuid"]), backend.credentials()).text
        assert "token-alice" in backend.credentials()
    for text in (state.reason, log):
        assert "token-alice" not in text and CLIENT_SECRET not in text, text
        assert MASK in text


def test_a_fixed_service_token_is_declared_before_any_call(make_app, emulator):
    app = make_app(
        ORCHESTRATOR_URL=emulator.url, ORCHESTRATOR_SERVICE_IDENTITY={"token": SERVICE_TOKEN}
    )
    with app.app_context(), _backend(SERVICE_TOKEN) as backend:
        assert SERVICE_TOKEN in backend.credentials()


def test_an_error_echoing_the_request_shows_no_token(make_app):
    """A proxy before the orchestrator that answers 400 with the request's headers in it."""

    @Request.application
    def echoing(request):
        body = {"code": 400, "message": f"Bad request: {request.headers.get('Authorization')}"}
        return Response(json.dumps(body), status=400, content_type="application/json")

    server = make_server("127.0.0.1", 0, echoing, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        app = make_app(ORCHESTRATOR_URL=f"http://127.0.0.1:{server.server_port}")
        with (
            app.app_context(),
            _backend("token-alice") as backend,
            pytest.raises(OrchestratorError) as refused,
        ):
            backend.state("11111111-2222-3333-4444-555555555555")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert "token-alice" not in refused.value.message
    assert "token-alice" not in str(refused.value)
    assert f"Bearer {MASK}" in refused.value.message
