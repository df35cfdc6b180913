"""A pool limit set for a Keycloak/IAM group binds the launches of its members, however the
provider and the operator wrote the group's name ("/physics/cms" or "physics/cms")."""

import re

import pytest
from sqlalchemy import func, select

from app.auth.models import User
from app.catalogue.operations import publish, save_revision
from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from

GPU_TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml

description: One machine with one GPU.

topology_template:
  inputs:
    num_gpus:
      type: integer
      default: 1

  node_templates:
    server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        host:
          properties:
            num_cpus: 1
            num_gpus: { get_input: num_gpus }
"""

SIDECAR = "name: One GPU\n"
CMS_MEMBER = {
    "sub": "carla-0005",
    "preferred_username": "carla",
    "name": "Carla Rubbia",
    "email": "carla@example.org",
    "groups": ["/physics/cms"],
}


@pytest.fixture
def portal(make_app, oidc_provider):
    app = make_app(
        OIDC_PROVIDERS=[oidc_provider.config()],
        ORCHESTRATOR_URL="demo",
        LAUNCHES_PER_MINUTE=0,
        QUOTA_UNCOUNTABLE_POLICY="refuse",
    )
    with app.app_context():
        save_revision("one-gpu", GPU_TEMPLATE, SIDECAR, "test", create=True)
        publish("one-gpu", "test")
    return app


def launch_page_post(client, group: str):
    page = client.get("/catalogue/one-gpu/").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "num_gpus": "1", "deployment_name": "", "group": group}
    return client.post("/catalogue/one-gpu/", data=data), page


@pytest.mark.parametrize("typed", ["/physics/cms", "physics/cms"])
def test_a_pool_of_one_gpu_for_a_slash_group_refuses_its_members_second_gpu_launch(
    portal, oidc_provider, typed
):
    client = portal.test_client()
    oidc_provider.set_claims(CMS_MEMBER["sub"], CMS_MEMBER)
    assert oidc_provider.log_in(client, CMS_MEMBER["sub"]).status_code == 302

    # The operator sets the pool the way operators do, typing the name as the provider shows it.
    typed_by_operator = portal.test_cli_runner().invoke(
        args=["quota", "set", "--group-pool", typed, "--gpus", "1", "--reason", "CMS share"]
    )
    assert typed_by_operator.exit_code == 0, typed_by_operator.output

    first, page = launch_page_post(client, "physics/cms")
    # The group picker offers the group under the one name the portal uses for it.
    assert re.search(r'<option value="physics/cms"', page)
    assert first.status_code == 302
    second, _page = launch_page_post(client, "physics/cms")
    refusal = second.get_data(as_text=True)
    assert second.status_code == 409, refusal[:400]
    assert "does not fit" in refusal and "pool" in refusal

    with portal.app_context():
        carla = db.session.scalar(select(User).where(User.subject == CMS_MEMBER["sub"]))
        assert carla.groups == ["physics/cms"]
        launched = db.session.scalar(select(func.count()).select_from(Deployment))
        assert launched == 1


def test_the_page_first_shown_counts_the_pool_its_launch_would_be_charged_to(portal, oidc_provider):
    client = portal.test_client()
    oidc_provider.set_claims(CMS_MEMBER["sub"], CMS_MEMBER)
    assert oidc_provider.log_in(client, CMS_MEMBER["sub"]).status_code == 302
    portal.test_cli_runner().invoke(
        args=["quota", "set", "--group-pool", "physics/cms", "--gpus", "1", "--reason", "CMS"]
    )
    first, _page = launch_page_post(client, "physics/cms")
    assert first.status_code == 302

    # Nothing chosen yet: the box counts the group the check at submit would charge, so Launch
    # is off before the person tries, as the server would refuse.
    page = client.get("/catalogue/one-gpu/").get_data(as_text=True)
    assert "Pool of group physics/cms" in page
    assert 'data-launchable="no"' in page
    assert re.search(r'id="launch-button"[^>]* disabled', page)
    assert "choose smaller sizes, or delete a deployment" in page
