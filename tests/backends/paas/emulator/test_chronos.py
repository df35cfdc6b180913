"""Chronos batch jobs in the emulator follow the orchestrator's ChronosServiceImpl: created
once the job has run, failed with the orchestrator's reason when it fails, never run before
its schedule starts, with an empty log and jobs named after their resources."""

from pathlib import Path

import pytest

from app.backends.paas.emulator.core import create_emulator, static_tokens
from tests.backends.paas.conftest import TOKENS

CATALOGUE = Path(__file__).resolve().parents[4] / "tosca-catalog"
HEADERS = {"Authorization": "Bearer token-alice"}


@pytest.fixture
def http():
    return create_emulator(static_tokens(TOKENS), complete_after_polls=3).test_client()


def submit(http, command: str, schedule: str = "R1//P1D") -> str:
    template = (CATALOGUE / "chronos-gpu-job.yaml").read_text()
    parameters = {"command": command, "schedule": schedule}
    created = http.post(
        "/deployments", json={"template": template, "parameters": parameters}, headers=HEADERS
    )
    assert created.status_code == 201, created.json
    return created.json["uuid"]


def poll(http, uuid: str) -> dict:
    return http.get(f"/deployments/{uuid}", headers=HEADERS).json


def job_states(http, uuid: str) -> dict[str, str]:
    found = http.get(f"/deployments/{uuid}/resources", headers=HEADERS).json["content"]
    return {r["toscaNodeName"]: r["state"] for r in found if "Chronos" in r["toscaNodeType"]}


def test_a_job_is_created_in_progress_then_complete_once_it_has_succeeded(http):
    uuid = submit(http, "python train.py")

    first = poll(http, uuid)
    assert first["status"] == "CREATE_IN_PROGRESS" and first["task"] == "DEPLOYER"
    assert first["cloudProviderEndpoint"]["deploymentType"] == "CHRONOS"
    assert job_states(http, uuid) == {"gpu_job": "CONFIGURING"}  # on Chronos, no result yet
    poll(http, uuid)
    done = poll(http, uuid)
    assert done["status"] == "CREATE_COMPLETE" and "statusReason" not in done
    assert job_states(http, uuid) == {"gpu_job": "STARTED"}
    assert http.get(f"/deployments/{uuid}/log", headers=HEADERS).get_data(as_text=True) == ""


def test_a_failing_job_fails_the_create_with_the_orchestrators_reason(http):
    uuid = submit(http, "python train.py && exit 3")

    states = [poll(http, uuid)["status"] for _ in range(3)]

    assert states == ["CREATE_IN_PROGRESS", "CREATE_IN_PROGRESS", "CREATE_FAILED"]
    failed = poll(http, uuid)
    job_id = failed["statusReason"].rsplit("Chronos job ", 1)[1].split()[0]
    assert failed["statusReason"] == (
        "Error while checking the deployment status; nested exception is "
        "it.reply.orchestrator.exception.service.DeploymentException: "
        f"Chronos job {job_id} failed to execute"
    )
    # The job is named after its resource; a failed create's resources are released.
    assert http.get(f"/deployments/{uuid}/resources", headers=HEADERS).json["content"] == []
    assert http.get(f"/deployments/{uuid}/log", headers=HEADERS).get_data(as_text=True) == ""


def test_a_job_scheduled_in_the_future_stays_in_progress_until_it_runs(http):
    uuid = submit(http, "python train.py", "R10/2099-11-26T02:00:00Z/PT6H")

    states = {poll(http, uuid)["status"] for _ in range(6)}

    assert states == {"CREATE_IN_PROGRESS"}
    assert job_states(http, uuid) == {"gpu_job": "CONFIGURING"}


def test_a_job_cannot_be_updated_nor_acted_on(http):
    uuid = submit(http, "true")
    for _ in range(3):
        poll(http, uuid)
    template = (CATALOGUE / "chronos-gpu-job.yaml").read_text()
    update = http.put(f"/deployments/{uuid}", json={"template": template}, headers=HEADERS)
    assert update.status_code == 400
