"""What a finished emulated deployment shows: outputs evaluated from the template and from what
the person typed, resources per node with their states, per-VM extra information."""

import json
from pathlib import Path

import pytest

from app.backends.paas.emulator.core import create_emulator, emulator_of, static_tokens
from tests.backends.paas.conftest import TOKENS

CATALOGUE = Path(__file__).resolve().parents[4] / "tosca-catalog"
HEADERS = {"Authorization": "Bearer token-alice"}


@pytest.fixture
def emulator_app():
    return create_emulator(static_tokens(TOKENS), complete_after_polls=None)


def launch(app, template_name: str, parameters: dict) -> dict:
    http = app.test_client()
    template = (CATALOGUE / f"{template_name}.yaml").read_text()
    created = http.post(
        "/deployments", json={"template": template, "parameters": parameters}, headers=HEADERS
    )
    assert created.status_code == 201, created.json
    uuid = created.json["uuid"]
    emulator_of(app).set_status(uuid, "CREATE_COMPLETE")
    return http.get(f"/deployments/{uuid}", headers=HEADERS).json


def test_the_ssh_account_in_the_outputs_is_the_one_the_person_chose(emulator_app):
    done = launch(emulator_app, "vm", {"username": "ada", "ssh_public_key": "ssh-ed25519 AAAA"})
    address = done["outputs"]["node_ip"]
    assert address.startswith("203.0.113.")
    assert done["outputs"]["ssh_access"] == f"ada@{address}"
    assert done["outputs"]["node_creds"]["user"] == "ada"
    assert done["outputs"]["node_creds"]["token_type"] == "private_key"


def test_concatenated_endpoints_use_the_nodes_address(emulator_app):
    done = launch(emulator_app, "jupyter-vm", {"jupyter_password": "pw"})
    outputs = done["outputs"]
    assert outputs["jupyter_endpoint"] == f"https://{outputs['node_ip']}:8000"


def test_a_cluster_gets_a_kubeconfig_and_one_resource_per_worker(emulator_app):
    done = launch(
        emulator_app, "kubernetes-cluster", {"admin_token": "t0ken", "num_cpu_workers": 3}
    )
    master = done["outputs"]["api_endpoint"].removeprefix("https://").removesuffix(":6443")
    assert f"server: https://{master}:6443" in done["outputs"]["kubeconfig"]
    resources = (
        emulator_app.test_client()
        .get(f"/deployments/{done['uuid']}/resources", query_string={"size": 50}, headers=HEADERS)
        .json["content"]
    )
    workers = [r for r in resources if r["toscaNodeName"] == "cpu_worker_server"]
    assert len(workers) == 3 and {r["state"] for r in workers} == {"STARTED"}
    assert all(r["physicalId"].startswith("vm-") for r in workers)
    front_end = next(r for r in resources if r["toscaNodeName"] == "k8s_master")
    assert front_end["requiredBy"] == ["k8s_front_end"]


def test_a_container_deployment_is_placed_on_marathon_and_cannot_be_updated(emulator_app):
    done = launch(emulator_app, "marathon-gpu-container", {"jupyter_token": "t"})
    assert done["cloudProviderEndpoint"]["deploymentType"] == "MARATHON"
    assert done["outputs"]["jupyter_endpoint"].startswith("http://203.0.113.")
    template = (CATALOGUE / "marathon-gpu-container.yaml").read_text()
    update = emulator_app.test_client().put(
        f"/deployments/{done['uuid']}", headers=HEADERS, json={"template": template}
    )
    assert update.status_code == 400


def test_resources_can_be_stopped_and_started_by_their_owner(emulator_app):
    done = launch(emulator_app, "vm", {"username": "ada", "ssh_public_key": "k"})
    http = emulator_app.test_client()
    base = f"/deployments/{done['uuid']}/resources"
    [vm] = http.get(
        base, query_string={"type": "tosca.nodes.indigo.Compute"}, headers=HEADERS
    ).json["content"]
    action = f"{base}/{vm['uuid']}/actions"

    assert http.post(action, json={"type": "reboot"}, headers=HEADERS).status_code == 400
    bob = {"Authorization": "Bearer token-bob"}
    assert http.post(action, json={"type": "stop"}, headers=bob).status_code == 403
    assert http.post(action, json={"type": "stop"}, headers=HEADERS).status_code == 202
    assert http.get(f"{base}/{vm['uuid']}", headers=HEADERS).json["state"] == "STOPPED"
    assert http.get(f"{base}/nope", headers=HEADERS).status_code == 404
    # Acting on an unknown resource is a bad request there, not a 404.
    assert (
        http.post(f"{base}/nope/actions", json={"type": "stop"}, headers=HEADERS).status_code == 400
    )


def test_extrainfo_lists_the_vms_once_built(emulator_app):
    done = launch(emulator_app, "vm", {"username": "ada", "ssh_public_key": "k"})
    text = (
        emulator_app.test_client()
        .get(f"/deployments/{done['uuid']}/extrainfo", headers=HEADERS)
        .get_data(as_text=True)
    )
    [vm] = json.loads(text)
    assert vm["publicIp"] == done["outputs"]["node_ip"]


EVERY_REQUIRED_INPUT = {
    "username": "ada",
    "ssh_public_key": "k",
    "jupyter_password": "p",
    "jupyter_token": "t",
    "admin_token": "a",
    "marathon_password": "m",
    "mesos_password": "m",
    "chronos_password": "c",
    "docker_image": "x",
    "command": "true",
}


def test_every_starter_template_completes_with_all_its_outputs(emulator_app):
    for path in sorted(CATALOGUE.glob("*.yaml")):
        if path.name.endswith(".portal.yaml"):
            continue
        done = launch(emulator_app, path.stem, EVERY_REQUIRED_INPUT)
        assert done["status"] == "CREATE_COMPLETE", path.name
        assert None not in done.get("outputs", {}).values(), (path.name, done.get("outputs"))
