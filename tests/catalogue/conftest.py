"""Fixtures for the catalogue tests: a bare Flask app for forms, input specs, parsed templates."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from werkzeug.datastructures import MultiDict

from app.catalogue.forms import field_name
from app.catalogue.parsed import InputSpec, parse_template

REPO = Path(__file__).parents[2]
TYPES_DIR = REPO / "tosca-catalog" / "types"
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def form_app():
    from flask_babel import Babel

    app = Flask(__name__)
    app.config.update(SECRET_KEY="test", WTF_CSRF_ENABLED=False, TESTING=True)
    Babel(app)  # generated forms word their help through gettext, as in the portal
    return app


@pytest.fixture(scope="session")
def types_dir() -> Path:
    return TYPES_DIR


@pytest.fixture
def make_spec():
    """Build an ``InputSpec`` with test-friendly defaults: ``spec("n", "integer", ...)``."""

    def make(name: str = "value", type: str = "string", **fields) -> InputSpec:
        if "default" in fields:
            fields.setdefault("has_default", True)
        return InputSpec(name=name, type=type, **fields)

    return make


@pytest.fixture
def parse_text(types_dir):
    """Parse template text (and sidecar text) the way the catalogue does."""

    def run(text: str, sidecar: str | None = None, slug: str = "test-app", **kwargs):
        return parse_template(slug, text, sidecar, types_dir=types_dir, **kwargs)

    return run


def form_data(form_class, values: dict) -> MultiDict:
    """POST data that fills ``form_class`` with TOSCA ``values`` (by input name)."""
    data = MultiDict()
    for name, value in values.items():
        input_field = form_class.input_fields[name]
        shown = input_field.to_form(value)
        key = field_name(name)
        if input_field.kind == "credential":
            data.add(f"{key}-user", (value or {}).get("user", ""))
            data.add(f"{key}-token", (value or {}).get("token", ""))
        elif input_field.kind == "boolean" and input_field.widget == "checkbox":
            if value:
                data.add(key, "y")
        else:
            data.add(key, "" if shown is None else str(shown))
    return data


SIMPLE_TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml

description: A small virtual machine.

metadata:
  display_name: Simple node
  tags: compute, test

topology_template:
  inputs:
    num_cpus:
      type: integer
      description: Number of virtual CPUs
      default: 1
      constraints:
        - valid_values: [1, 2, 4]
    mem_size:
      type: scalar-unit.size
      default: 2 GB
      constraints:
        - in_range: [1 GB, 16 GB]
    ssh_public_key:
      type: string
      description: Your SSH public key
    ports:
      type: map
      required: false
      entry_schema:
        type: tosca.datatypes.indigo.network.PortSpec

  node_templates:
    simple_node:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
            ports: { get_input: ports }
        host:
          properties:
            num_cpus: { get_input: num_cpus }
            mem_size: { get_input: mem_size }
        os:
          properties:
            type: linux

  outputs:
    node_ip:
      value: { get_attribute: [ simple_node, public_address, 0 ] }
    node_creds:
      value: { get_attribute: [ simple_node, endpoint, credential, 0 ] }
"""


@pytest.fixture
def simple_template() -> str:
    return SIMPLE_TEMPLATE


@pytest.fixture
def admin(login_as):
    return login_as("admin", username="curator")
