"""The orchestrator emulator served over real HTTP on 127.0.0.1, and clients that call it."""

import socket
import threading

import pytest
from werkzeug.serving import make_server

from app.backends.paas.client import OrchestratorClient
from app.backends.paas.emulator.core import Identity, create_emulator, emulator_of, static_tokens

ALICE = Identity("alice-sub", "https://iam.test/", ("physics",))
BOB = Identity("bob-sub", "https://iam.test/", ("chemistry",))
TOKENS = {"token-alice": ALICE, "token-bob": BOB}

TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
topology_template:
  inputs:
    num_cpus: {type: integer, default: 1}
    ssh_public_key: {type: string}
    note: {type: string, required: false}
  node_templates:
    server: {type: tosca.nodes.indigo.Compute}
  outputs:
    jupyter_endpoint: {value: {get_attribute: [server, public_address, 0]}}
    node_ip: {value: {get_attribute: [server, public_address, 0]}}
    node_creds: {value: {get_attribute: [server, endpoint, credential, 0]}}
"""
PARAMETERS = {"ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemo demo@example.org"}


class RunningEmulator:
    """An emulator app serving on a free 127.0.0.1 port in a background thread."""

    def __init__(self, **settings):
        self.app = create_emulator(static_tokens(TOKENS), **settings)
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def faults(self):
        return emulator_of(self.app).faults

    def client(self, token="token-alice", timeout=(2, 2)) -> OrchestratorClient:  # noqa: S107
        return OrchestratorClient(self.url, lambda: token, timeout)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def emulator():
    running = RunningEmulator(complete_after_polls=2)
    yield running
    running.stop()


@pytest.fixture
def alice(emulator):
    with emulator.client() as client:
        yield client


@pytest.fixture
def closed_port_url():
    """A 127.0.0.1 URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
