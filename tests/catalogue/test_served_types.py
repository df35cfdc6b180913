"""Type library files at public addresses, and templates whose imports point at them, for
backends that fetch a template's imports themselves."""

from pathlib import Path

import pytest
import yaml

from app.catalogue import operations
from app.catalogue.served_types import imports_for_fetching_backends

CORPUS = Path(__file__).parent / "corpus"
ACME_URL = "https://git.acme.example/infra/tosca-types/raw/{ref}/{path}"
PORTAL = "https://portal.example.org/"
TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

# Types of the site, and of someone else.
imports:
  - acme_types: https://git.acme.example/infra/tosca-types/raw/master/all.yaml
  - https://types.elsewhere.example/custom_types.yaml
  - { file: tosca/types/iam.yaml, repository: acme }
# The rest stays as it is.

repositories:
  acme: https://git.acme.example/infra/tosca-types/raw/v1.2

description: A machine.   # a comment the backend never minds

topology_template:
  node_templates:
    server:
      type: acme.nodes.Compute
"""


@pytest.fixture
def acme(app):
    with app.app_context():
        operations.add_library(
            "acme-types", operations.files_from_folder(CORPUS / "site-types"), [ACME_URL], "seed"
        )


def test_a_library_file_is_served_to_anyone_as_yaml_with_an_etag(app, client, acme):
    response = client.get("/types/acme-types/tosca/types/iam.yaml")

    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.headers["ETag"]
    assert "public" in response.headers["Cache-Control"]
    text = (CORPUS / "site-types" / "tosca" / "types" / "iam.yaml").read_text(encoding="utf-8")
    assert response.get_data(as_text=True) == text

    again = client.get(
        "/types/acme-types/tosca/types/iam.yaml",
        headers={"If-None-Match": response.headers["ETag"]},
    )
    assert again.status_code == 304


def test_a_served_files_own_imports_point_at_the_portal_where_a_library_holds_them(
    app, client, acme
):
    response = client.get("/types/acme-types/tosca/types/compute.yaml")

    imports = yaml.safe_load(response.get_data(as_text=True))["imports"]
    assert imports == [
        {"base": "http://localhost/types/acme-types/tosca/types/base.yaml"},
        {"network": "http://localhost/types/acme-types/tosca/types/network.yaml"},
    ]
    relative = yaml.safe_load(client.get("/types/acme-types/all.yaml").get_data(as_text=True))
    assert relative["imports"][0] == {"compute": "tosca/types/compute.yaml"}


def test_only_library_files_are_served(app, client, acme):
    for path in (
        "/types/acme-types/missing.yaml",
        "/types/nobody/all.yaml",
        "/types/acme-types/../acme-types/all.yaml",
        "/types/acme-types/tosca/../all.yaml",
        "/types/acme-types/tosca/%2e%2e/all.yaml",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post("/types/acme-types/all.yaml").status_code in (400, 405)


def test_the_shipped_copies_are_served_while_no_library_is_registered(app, client):
    response = client.get("/types/indigo-2025-08/custom_types.yaml")

    assert response.status_code == 200
    assert "tosca.nodes.indigo.Compute:" in response.get_data(as_text=True)


def test_imports_the_portal_resolves_point_at_its_public_addresses(app, acme):
    with app.app_context():
        sent = imports_for_fetching_backends(TEMPLATE, PORTAL)

    document = yaml.safe_load(sent)
    assert document["imports"] == [
        {"acme_types": "https://portal.example.org/types/acme-types/all.yaml"},
        "https://types.elsewhere.example/custom_types.yaml",
        "https://portal.example.org/types/acme-types/tosca/types/iam.yaml",
    ]
    original = yaml.safe_load(TEMPLATE)
    assert {k: v for k, v in document.items() if k != "imports"} == {
        k: v for k, v in original.items() if k != "imports"
    }
    after = TEMPLATE.split("# The rest stays as it is.", 1)[1]
    assert sent.endswith("# The rest stays as it is." + after)


def test_a_template_with_no_import_a_library_holds_is_sent_as_it_is(app, acme):
    text = TEMPLATE.replace("git.acme.example", "git.other.example")
    with app.app_context():
        assert imports_for_fetching_backends(text, PORTAL) == text
        assert imports_for_fetching_backends("not: [closed\n", PORTAL) == "not: [closed\n"


def test_a_starter_template_points_at_the_shipped_library(app):
    text = (Path(__file__).parents[2] / "tosca-catalog" / "vm.yaml").read_text(encoding="utf-8")
    with app.app_context():
        sent = imports_for_fetching_backends(text, "https://portal.example.org/base")

    assert yaml.safe_load(sent)["imports"] == [
        {
            "indigo_custom_types": "https://portal.example.org/base/types/indigo-2025-08/custom_types.yaml"
        }
    ]


GITHUB = "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/artifacts/"


def test_the_shipped_types_name_the_playbooks_they_hold_at_the_portal(app, client):
    """IM downloads an operation's playbook while it creates: the served INDIGO types name the
    portal's copy of each playbook the library holds, and the portal serves it."""
    served = client.get("/types/indigo-2025-08/custom_types.yaml").get_data(as_text=True)

    compute = yaml.safe_load(served)["node_types"]["tosca.nodes.indigo.Compute"]
    configure = compute["interfaces"]["Standard"]["configure"]["implementation"]
    assert configure == "http://localhost/types/indigo-2025-08/artifacts/os/configure_users.yml"
    # A playbook the library does not hold keeps its address.
    assert GITHUB + "galaxy/galaxy_install.yml" in served
    playbook = client.get("/types/indigo-2025-08/artifacts/os/configure_users.yml")
    assert playbook.status_code == 200
    assert "indigo-dc.os_users" in playbook.get_data(as_text=True)


def test_a_templates_own_operation_playbook_the_library_holds_points_at_the_portal(app):
    text = (
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "topology_template:\n"
        "  node_templates:\n"
        "    server:\n"
        "      type: tosca.nodes.Compute\n"
        "      interfaces:\n"
        "        Standard:\n"
        f"          configure: {GITHUB}os/configure_users.yml\n"
        f"          start: {GITHUB}os/configure_users.yml.old\n"
    )
    with app.app_context():
        sent = imports_for_fetching_backends(text, PORTAL)

    standard = yaml.safe_load(sent)["topology_template"]["node_templates"]["server"]
    assert standard["interfaces"]["Standard"] == {
        "configure": PORTAL + "types/indigo-2025-08/artifacts/os/configure_users.yml",
        "start": GITHUB + "os/configure_users.yml.old",
    }
