"""A portal on the demo orchestrator, a published template, and helpers to launch it."""

import pytest
from argon2 import PasswordHasher

from app.auth import local
from app.auth.models import User
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.deployments.operations import launch
from app.extensions import db
from app.orchestrator.emulator import emulator_of
from app.orchestrator.emulator_demo import demo_emulator

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
            return launch(user, entry, dict(parameters or PARAMETERS)).id

    return run
