"""A portal on the emulator with a GPU template, a group pool of A100s, and helpers to fill it,
wait in line, and move time."""

import pytest

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from app.launch import workflow
from app.launch.admission import admit_once
from app.launch.request import LaunchRequest, LeaseChoice
from app.quotas.editing import parse_limit, set_limits
from tests.deployments.conftest import (  # noqa: F401 - fixtures shared with deployments
    app,
    closed_port_url,
    emulated,
    emulated_settings,
)
from tests.leases.conftest import Leases, clock  # noqa: F401

GPU_TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml

description: One machine with GPUs.

topology_template:
  inputs:
    num_gpus:
      type: integer
      default: 1
    gpu_model:
      type: string
      default: A100
    jupyter_password:
      type: string
      required: false

  node_templates:
    server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        host:
          properties:
            num_cpus: 1
            num_gpus: { get_input: num_gpus }
            gpu_model: { get_input: gpu_model }
"""
GPU_SIDECAR = "name: GPU machine\n"


class Line:
    """Helpers on an ``emulated`` portal with the GPU template published."""

    def __init__(self, portal):
        self.emulated, self.app = portal, portal.app
        self.leases = Leases(portal)

    def pool(self, group="physics", **limits):
        with self.app.app_context():
            changes = {}
            for key, text in limits.items():
                if key == "gpu_models":
                    changes["gpu_models"] = {m: parse_limit("gpus", t) for m, t in text.items()}
                else:
                    changes[key] = parse_limit(key, text)
            set_limits(None, "group", group, changes, "test")

    def own(self, user_id, **limits):
        with self.app.app_context():
            changes = {key: parse_limit(key, text) for key, text in limits.items()}
            set_limits(None, "user", str(user_id), changes, "test")

    def launch(self, user_id, gpus=1, model="A100", minutes=None, **options) -> int:
        """A GPU launch that must fit now; returns its id."""
        return self.emulated.launch(
            user_id,
            "gpu-machine",
            {"num_gpus": gpus, "gpu_model": model},
            group="physics",
            lease=LeaseChoice(minutes),
            **options,
        )

    def wait(self, user_id, gpus=1, model="A100", minutes=None, name=None) -> Deployment:
        """Wait in line (or launch at once); returns the deployment, detached."""
        with self.app.app_context():
            user = db.session.get(User, user_id)
            asked = LaunchRequest(
                user,
                catalogue().get("gpu-machine"),
                {"num_gpus": gpus, "gpu_model": model},
                name=name,
                group="physics",
                lease=LeaseChoice(minutes),
            )
            deployment = workflow.launch(asked, wait=True)
            db.session.refresh(deployment)
            db.session.expunge(deployment)
            return deployment

    def admit(self):
        with self.app.app_context():
            return admit_once()

    def status(self, deployment_id) -> str:
        return self.emulated.row(deployment_id).status


@pytest.fixture
def line(emulated):  # noqa: F811 - the fixture imported above
    with emulated.app.app_context():
        save_revision("gpu-machine", GPU_TEMPLATE, GPU_SIDECAR, "test", create=True)
        publish("gpu-machine", "test")
    return Line(emulated)
