"""The demo mode (ORCHESTRATOR_URL = "demo"): the orchestrator emulator inside the portal's own
process, reached through the ordinary client, so trying the portal needs no second server.

Demo mode only: the portal's local and LDAP accounts have no IAM token, so here the portal
signs a short-lived token itself with its SECRET_KEY (itsdangerous), carrying the person's
subject and an issuer naming their login provider, and the in-process emulator verifies it. No
real orchestrator ever sees, or would accept, such a token.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import requests
from flask import Flask
from itsdangerous import BadSignature, URLSafeTimedSerializer
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from werkzeug.test import Client

from app.backends.paas.client import OrchestratorClient, Timeout
from app.backends.paas.connect import Caller
from app.backends.paas.emulator.core import Faults, Identity, create_emulator, emulator_of
from app.backends.paas.emulator.faults import ConnectionDropped, ConnectionHung
from app.backends.paas.emulator.store import EmulatorStore
from app.extension_points import StateKey

DEMO_BASE_URL = "http://orchestrator.demo.invalid"
_ISSUER_PREFIX = "demo:"
TOKEN_SECONDS = 300
_SALT = "demo-orchestrator-token"
_EMULATOR = StateKey("demo orchestrator")
_create_lock = threading.Lock()


class DemoTokens:
    """Signs and checks the demo mode's bearer tokens with the portal's secret key."""

    def __init__(self, secret_key: str | bytes):
        self._serializer = URLSafeTimedSerializer(secret_key, salt=_SALT)

    def issue(self, identity: Identity) -> str:
        groups = None if identity.groups is None else list(identity.groups)
        return self._serializer.dumps(
            {"sub": identity.subject, "iss": identity.issuer, "groups": groups}
        )

    def verify(self, token: str) -> Identity | None:
        """The identity in ``token``, or ``None`` if it is forged, garbled or expired."""
        try:
            claims = self._serializer.loads(token, max_age=TOKEN_SECONDS)
        except BadSignature:  # also covers SignatureExpired
            return None
        groups = claims.get("groups")
        return Identity(claims["sub"], claims["iss"], None if groups is None else tuple(groups))


def demo_identity(caller: Caller | None) -> Identity:
    """Who ``caller`` is to the demo emulator: their subject, under an issuer per login
    provider; the portal itself (``None``) is one more caller."""
    if caller is None:
        return Identity("portal", f"{_ISSUER_PREFIX}portal", ())
    return Identity(caller.subject, f"{_ISSUER_PREFIX}{caller.provider}", tuple(caller.groups))


def login_provider_of(issuer: str) -> str | None:
    """The login provider a demo ``issuer`` names; None for any other issuer."""
    return issuer.removeprefix(_ISSUER_PREFIX) if issuer.startswith(_ISSUER_PREFIX) else None


class WSGITransport(BaseAdapter):
    """A requests transport that hands every request to a WSGI app in this process.

    ``faults.down`` makes it refuse like a closed port; an answer slower than the read timeout
    raises ReadTimeout once it arrives (a call in the same thread cannot be cut short); a hung
    call raises ReadTimeout at once and a lost answer ConnectionError, as they would end over
    a network.
    """

    def __init__(self, wsgi_app, faults: Faults | None = None):
        super().__init__()
        self.wsgi_app = wsgi_app
        self.faults = faults

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        if self.faults is not None and self.faults.down:
            raise requests.ConnectionError("The demo orchestrator is switched off", request=request)
        started = time.monotonic()
        url = urlsplit(request.url)
        try:
            answer = Client(self.wsgi_app).open(
                path=url.path,
                query_string=url.query,
                method=request.method,
                headers=list(request.headers.items()),
                data=request.body or b"",
                base_url=f"{url.scheme}://{url.netloc}",
            )
        except ConnectionHung as hung:
            message = "The demo orchestrator did not answer"
            raise requests.ReadTimeout(message, request=request) from hung
        except ConnectionDropped as dropped:
            message = "The demo orchestrator dropped the connection"
            raise requests.ConnectionError(message, request=request) from dropped
        read_timeout = timeout[1] if isinstance(timeout, tuple) else timeout
        if read_timeout is not None and time.monotonic() - started > read_timeout:
            raise requests.ReadTimeout("The demo orchestrator answered too late", request=request)
        response = requests.Response()
        response.status_code = answer.status_code
        response.reason = answer.status.partition(" ")[2]
        response.headers = CaseInsensitiveDict(answer.headers.items())
        response._content = answer.get_data()
        response.encoding = get_encoding_from_headers(response.headers)
        response.url, response.request = request.url, request
        return response

    def close(self) -> None:
        pass


def demo_emulator(app: Flask) -> Flask:
    """The portal ``app``'s demo emulator, created at first use.

    Its deployments live in ``demo-orchestrator.sqlite`` in the instance folder so that every
    worker process sees the same ones. Progress: ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS reads
    (default 3) or ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS (default 20), whichever comes first.
    """
    with _create_lock:
        emulator = app.extensions.get(_EMULATOR)
        if emulator is None:
            folder = Path(app.instance_path)
            folder.mkdir(parents=True, exist_ok=True)
            config = app.config
            emulator = create_emulator(
                DemoTokens(config["SECRET_KEY"]).verify,
                EmulatorStore(str(folder / "demo-orchestrator.sqlite")),
                complete_after_polls=config["ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS"],
                complete_after_seconds=config["ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS"],
            )
            app.extensions[_EMULATOR] = emulator
        return emulator


def demo_session(app: Flask) -> requests.Session:
    """A session whose calls to DEMO_BASE_URL reach ``app``'s demo emulator in-process."""
    emulator = demo_emulator(app)
    session = requests.Session()
    session.mount(DEMO_BASE_URL, WSGITransport(emulator, emulator_of(emulator).faults))
    return session


def demo_client(app: Flask, caller: Caller | None, timeout: Timeout) -> OrchestratorClient:
    """A client reaching ``app``'s demo emulator in-process as ``caller``, with tokens signed
    by the portal; its ``with_token`` copies reach the same emulator."""
    tokens, identity = DemoTokens(app.config["SECRET_KEY"]), demo_identity(caller)
    return OrchestratorClient(
        DEMO_BASE_URL,
        lambda: tokens.issue(identity),
        timeout,
        session_factory=lambda: demo_session(app),
    )
