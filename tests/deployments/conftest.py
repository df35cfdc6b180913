"""A portal on the demo orchestrator, a published template, and helpers to launch it."""

import pytest
import requests
from argon2 import PasswordHasher

from app.auth import local
from app.auth.models import User
from app.backends.paas.emulator.core import emulator_of
from app.backends.paas.emulator.demo import demo_emulator
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.extensions import db
from app.launch.request import LaunchRequest
from app.launch.workflow import launch

TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml

description: A notebook server for the deployment tests.

topology_template:
  inputs:
    num_cpus:
      type: integer
      default: 1
    jupyter_password:
      type: string
      description: Password of the notebook
    ssh_public_key:
      type: string
      required: false

  node_templates:
    server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        host:
          properties:
            num_cpus: { get_input: num_cpus }

  outputs:
    jupyter_endpoint:
      description: Address of the notebook server
      value: { concat: [ 'https://', { get_attribute: [ server, public_address, 0 ] } ] }
    node_ip:
      value: { get_attribute: [ server, public_address, 0 ] }
    node_creds:
      value: { get_attribute: [ server, endpoint, credential, 0 ] }
    kube_config:
      value: { get_attribute: [ server, public_address, 0 ] }
"""

SIDECAR = """\
name: Test notebook
inputs:
  num_cpus: {label: Cores}
outputs:
  jupyter_endpoint: {label: Notebook, show: link}
  node_ip: {label: IP address, show: ssh}
  node_creds: {label: Login, show: secret}
  kube_config: {label: Cluster configuration, show: download}
"""

PARAMETERS = {"num_cpus": 2, "jupyter_password": "s3cret-passw0rd", "ssh_public_key": ""}


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch):
    """These tests log people in but are not about passwords: hash them cheaply."""
    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    monkeypatch.setattr(local, "_hasher", cheap)


@pytest.fixture
def app(make_app):
    portal = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        DEPLOYMENTS_RECHECK_SECONDS=0,
    )
    with portal.app_context():
        save_revision("test-notebook", TEMPLATE, SIDECAR, "test", create=True)
        publish("test-notebook", "test")
    return portal


@pytest.fixture
def faults(app):
    """The demo orchestrator's fault switches (see emulator.Faults)."""
    return emulator_of(demo_emulator(app)).faults


@pytest.fixture
def launch_as(app):
    """Launch the test template for the user ``user_id``; returns the deployment id."""

    def run(user_id: int, parameters: dict | None = None) -> int:
        with app.app_context():
            user = db.session.get(User, user_id)
            entry = catalogue().get("test-notebook")
            return launch(LaunchRequest(user, entry, dict(parameters or PARAMETERS))).id

    return run


@pytest.fixture
def make_deployment(app):
    """Store a deployment of the test template for ``user_id`` straight in the database (no
    orchestrator involved), with ``fields`` overriding the defaults; returns its id.

    ``events`` is a list of (to_status, source, reason) recorded on its timeline, in order;
    ``secrets`` and ``secret_outputs`` are sealed the way the portal keeps them.
    """
    import secrets as random
    from datetime import timedelta

    from app.catalogue.models import CatalogueTemplate
    from app.clock import utcnow
    from app.deployments.models import Deployment, DeploymentEvent

    def make(user_id: int, events=(), secrets=None, secret_outputs=None, **fields) -> int:
        from app.deployments.secrets import seal

        with app.app_context():
            fields.setdefault("secrets_sealed", seal(secrets or {}))
            fields.setdefault("secret_outputs_sealed", seal(secret_outputs or {}))
            revision_id = db.session.scalar(
                db.select(CatalogueTemplate.published_revision_id).where(
                    CatalogueTemplate.slug == "test-notebook"
                )
            )
            values = {
                "uuid": f"{random.token_hex(4)}-0000-4000-8000-{random.token_hex(6)}",
                "user_id": user_id,
                "name": "Test notebook",
                "template_slug": "test-notebook",
                "revision_id": revision_id,
                "template_name": "Test notebook",
                "template_text": TEMPLATE,
                "parameters": {"num_cpus": 2},
                "status": "ready",
                "outputs": {},
                "charge": {},
                "created_at": utcnow() - timedelta(minutes=5),
                **fields,
            }
            deployment = Deployment(**values)
            db.session.add(deployment)
            db.session.flush()
            at = values["created_at"]
            previous = None
            for to_status, source, reason in events:
                at = at + timedelta(minutes=1)
                db.session.add(
                    DeploymentEvent(
                        deployment_id=deployment.id,
                        at=at,
                        from_status=previous,
                        to_status=to_status,
                        source=source,
                        reason=reason,
                    )
                )
                previous = to_status
            db.session.commit()
            return deployment.id

    return make


# --- Launching and syncing against the emulator served over HTTP ----------------------------------

SERVICE_TOKEN = "tok-portal-service"  # noqa: S105 - a test token the emulator is told to accept
ISSUER = "https://iam.test/"
SECRET_SIDECAR = SIDECAR.replace(
    "  num_cpus: {label: Cores}\n",
    "  num_cpus: {label: Cores}\n  jupyter_password: {label: Password, generate: true}\n",
)


class Emulated:
    """A portal whose orchestrator is the emulator server, and helpers to act on both.

    Local users launch through the service identity; ``oidc_user`` makes people who call with
    their own token. Deployments move only when the test says so (``emulator.set_status``).
    """

    def __init__(self, app, emulator):
        self.app, self.emulator = app, emulator

    def user(self, username: str, groups=("physics",), admin: bool = False) -> int:
        from app.auth.cli import create_local_user
        from app.auth.operations import grant_role

        with self.app.app_context():
            user = create_local_user(username, "correct horse battery")
            user.groups = list(groups)
            if admin:
                grant_role(user, "admin", granted_by="test")
            db.session.commit()
            return user.id

    def oidc_user(self, name: str, groups=("physics",)) -> int:
        """A person logged in through the test IAM, whose stored token the emulator accepts."""
        from app.auth.tokens import store_tokens

        token = f"tok-{name}"
        self.emulator.add_token(token, f"{name}-sub", ISSUER, groups=list(groups))
        with self.app.app_context():
            user = User(
                provider="iam",
                subject=f"{name}-sub",
                username=name,
                groups=list(groups),
                group_roles=[],
            )
            db.session.add(user)
            db.session.commit()
            store_tokens(user, "iam", {"access_token": token, "expires_in": 3600})
            return user.id

    def launch(self, user_id: int, slug: str = "test-notebook", parameters=None, **options):
        """Launch ``slug`` for ``user_id``; returns the deployment id (errors propagate)."""
        with self.app.app_context():
            user = db.session.get(User, user_id)
            entry = catalogue().get(slug)
            return launch(LaunchRequest(user, entry, dict(parameters or PARAMETERS), **options)).id

    def row(self, deployment_id: int):
        """The deployment as stored now, with its timeline loaded (detached)."""
        from app.deployments.models import Deployment

        with self.app.app_context():
            deployment = db.session.get(Deployment, deployment_id)
            list(deployment.events)
            db.session.expunge(deployment)
            return deployment

    def sync(self):
        """One pass of the sync worker; returns its PassResult."""
        from app.sync.passes import sync_once

        with self.app.app_context():
            return sync_once()

    def posts(self) -> int:
        return sum(
            1
            for r in self.emulator.requests()
            if r["method"] == "POST" and r["path"] == "/deployments"
        )


@pytest.fixture
def closed_port_url():
    """A 127.0.0.1 URL where nothing listens (the port was free a moment ago)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def emulated_settings(closed_port_url):
    """Settings of the ``emulated`` portal; a test may change them before asking for it."""
    return {
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": SERVICE_TOKEN},
        "ORCHESTRATOR_TIMEOUT": (1, 2),
        "ORCHESTRATOR_ACTION_TIMEOUT": (1, 2),
        # Callbacks go nowhere unless a test serves the portal (see test_callbacks).
        "PORTAL_BASE_URL": closed_port_url,
        "OIDC_PROVIDERS": [
            {
                "name": "iam",
                "label": "Test IAM",
                "issuer": ISSUER,
                "client_id": "portal",
                "client_secret": "not-used",
            }
        ],
        "LAUNCHES_PER_MINUTE": 0,
        "DEPLOYMENTS_SYNC_INTERVAL_SECONDS": 0,
    }


def save_and_publish(app) -> None:
    """Publish the test template twice: as is, and with its password generated."""
    with app.app_context():
        save_revision("test-notebook", TEMPLATE, SIDECAR, "test", create=True)
        publish("test-notebook", "test")
        save_revision("secret-notebook", TEMPLATE, SECRET_SIDECAR, "test", create=True)
        publish("secret-notebook", "test")


@pytest.fixture
def emulated(make_app, orchestrator_emulator, emulated_settings):
    orchestrator_emulator.add_token(
        SERVICE_TOKEN, "portal-service", ISSUER, groups=["physics", "chemistry"]
    )
    portal = make_app(ORCHESTRATOR_URL=orchestrator_emulator.url, **emulated_settings)
    save_and_publish(portal)
    return Emulated(portal, orchestrator_emulator)


@pytest.fixture
def no_orchestrator(monkeypatch):
    """Fail the test if anything asks the orchestrator (real or demo) during it."""

    def refuse(*args, **kwargs):
        raise AssertionError("a page asked the orchestrator")

    monkeypatch.setattr(requests.Session, "request", refuse)
