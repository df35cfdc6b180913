"""Helpers for the IM backend's tests: backends acting for a fresh IM identity each (so that
one test never sees another's infrastructures), templates, and waiting for an end state."""

import secrets
import time
from pathlib import Path

import pytest

from app.backends.base import BackendError
from app.backends.im.backend import ImBackend
from app.backends.im.client import ImClient, auth_lines
from app.backends.im.deletes import file_lock, lock_file
from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from app.sync.passes import sync_once
from tests.fixtures.im_server import DUMMY_CLOUD

DATA = Path(__file__).parents[2] / "data" / "im"
# Connect and read timeouts for the tests: IM on loopback answers in milliseconds.
TIMEOUT = (2, 15)


def template(name: str) -> str:
    text = (DATA / name).read_text()
    return text.replace("@CONFIGURE@", (DATA / "configure.yml").resolve().as_uri())


def wait_until_settled(backend: ImBackend, backend_id: str, timeout: float = 30):
    """The first state that is no longer moving."""
    deadline = time.monotonic() + timeout
    while True:
        state = backend.state(backend_id)
        if not state.moving or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


@pytest.fixture
def im_identity():
    """A user name and password of their own at IM: IM accepts any pair, and an
    infrastructure belongs to the pair that made it."""
    return f"portal-test-{secrets.token_hex(4)}", f"pw-{secrets.token_hex(8)}"


@pytest.fixture
def make_im_backend(im_server, im_identity, tmp_path):
    """Makes ImBackends for this test's IM identity, deletes serialised by a file lock in
    ``tmp_path`` (as on SQLite); whatever they leave is deleted afterwards."""
    username, password = im_identity
    lines = auth_lines([DUMMY_CLOUD], username=username, password=password)
    lock_path = lock_file(str(tmp_path), im_server.url)
    made = []

    def factory(url: str | None = None, timeout=TIMEOUT, serialise: bool = True) -> ImBackend:
        client = ImClient(url or im_server.url, lines, timeout)
        lock = (lambda: file_lock(lock_path)) if serialise else None
        backend = ImBackend(client, **({"delete_lock": lock} if lock else {}))
        made.append(backend)
        return backend

    yield factory
    cleaner = ImBackend(ImClient(im_server.url, lines, TIMEOUT))
    for leftover in cleaner.client.list_ids():
        try:
            wait_until_settled(cleaner, leftover, timeout=10)
            cleaner.delete(leftover, force=True)
        except BackendError:
            pass  # IM's own fault (see deletes.py); the session's IM goes away at its end
    for backend in [*made, cleaner]:
        backend.close()


@pytest.fixture
def im_backend(make_im_backend):
    return make_im_backend()


SIDECAR = """\
name: One machine
backend: im
outputs:
  node_ip: {label: Address, show: ssh}
"""


def im_portal(make_app, im_server, im_identity, **settings):
    """A portal whose "one-machine" template is routed to the test's IM identity."""
    username, password = im_identity
    app = make_app(
        ORCHESTRATOR_URL="demo",
        IM_URL=im_server.url,
        IM_CLOUDS=DUMMY_CLOUD,
        IM_USERNAME=username,
        IM_PASSWORD=password,
        IM_TIMEOUT=list(TIMEOUT),
        DEPLOYMENTS_SYNC_INTERVAL_SECONDS=0,
        LAUNCHES_PER_MINUTE=0,
        **settings,
    )
    with app.app_context():
        save_revision("one-machine", (DATA / "compute.yaml").read_text(), SIDECAR, "t", create=True)
        publish("one-machine", "test")
    return app


@pytest.fixture
def portal(make_app, im_server, im_identity):
    return im_portal(make_app, im_server, im_identity)


def at_im(im_server, im_identity) -> ImBackend:
    username, password = im_identity
    lines = auth_lines([DUMMY_CLOUD], username=username, password=password)
    return ImBackend(ImClient(im_server.url, lines, TIMEOUT))


def sync_until(app, deployment_id: int, done, timeout: float = 30) -> Deployment:
    deadline = time.monotonic() + timeout
    while True:
        with app.app_context():
            sync_once()
            row = db.session.get(Deployment, deployment_id)
            if done(row) or time.monotonic() > deadline:
                db.session.expunge(row)
                return row
        time.sleep(0.1)


@pytest.fixture(scope="module")
def quiet_im(im_server):
    """An IM of its own for the tests that need IM to refuse a template: IM 2.0.0 parses
    templates with state shared by its whole process, so a refusal can be lost while it
    parses another template (the session's IM works on other tests' infrastructures in the
    background). Nothing else is sent to this one while it is asked to refuse."""
    from tests.fixtures.im_server import start_im, stop_im

    server = start_im()
    yield server
    stop_im(server)
