"""A batch job in My deployments and on its page reads as a job from the start: queued before
a site takes it, under filter words that fit jobs too, and a log that says why it is empty."""

import html as markup
import re
from pathlib import Path

import pytest

from app.deployments import operations
from tests.deployments.pages_support import page_text, row_of

JOB = (Path(__file__).resolve().parents[2] / "tosca-catalog" / "chronos-gpu-job.yaml").read_text()
ITALIAN = {"Accept-Language": "it"}


def words(html: str) -> str:
    return " ".join(markup.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def a_job(make_deployment, user_id: int, **fields) -> int:
    """A batch job as stored before the orchestrator placed it: no site, no deployment type."""
    values = {
        "template_text": JOB,
        "parameters": {"command": "python train.py", "schedule": "R1//P1D"},
        "status": "creating",
        "site": None,
        "deployment_type": None,
        **fields,
    }
    return make_deployment(user_id, **values)


@pytest.mark.parametrize("status", ["SUBMITTING", "creating"])
def test_a_job_not_yet_placed_reads_as_queued_in_the_list(
    client, login_as, make_deployment, no_orchestrator, status
):
    job_id = a_job(make_deployment, login_as(), status=status)

    row = words(row_of(page_text(client, "/deployments/"), job_id))

    assert "Queued" in row
    assert "Creating" not in row and "Submitting" not in row


def test_a_service_not_yet_placed_still_reads_as_creating(
    client, login_as, make_deployment, no_orchestrator
):
    service_id = make_deployment(login_as(), status="creating", site=None)

    assert "Creating" in words(row_of(page_text(client, "/deployments/"), service_id))


def test_the_status_filter_offers_words_that_fit_jobs_and_services(
    client, login_as, no_orchestrator
):
    login_as()

    english = page_text(client, "/deployments/")
    italian = client.get("/deployments/", headers=ITALIAN).get_data(as_text=True)

    assert '<option value="ready" >Ready (services)</option>' in english
    assert '<option value="succeeded" >Succeeded (batch jobs)</option>' in english
    assert '<option value="progress" >In progress, queued or running</option>' in english
    assert '<option value="ready" >Pronti (servizi)</option>' in italian
    assert '<option value="succeeded" >Completati con successo (job batch)</option>' in italian


@pytest.mark.parametrize("placed", [True, False], ids=["placed", "before-a-site"])
def test_ready_lists_services_and_succeeded_lists_jobs(
    client, login_as, make_deployment, no_orchestrator, placed
):
    owner = login_as()
    site = {"site": "ReCaS-Bari", "deployment_type": "CHRONOS"} if placed else {}
    job_id = a_job(make_deployment, owner, status="ready", **site)
    service_id = make_deployment(owner, status="ready", template_text=None)

    ready = page_text(client, "/deployments/?status=ready")
    succeeded = page_text(client, "/deployments/?status=succeeded")

    assert f'id="deployment-{service_id}"' in ready and f'id="deployment-{job_id}"' not in ready
    assert f'id="deployment-{job_id}"' in succeeded
    assert f'id="deployment-{service_id}"' not in succeeded


def _log_page(client, monkeypatch, deployment_id: int, headers=None) -> str:
    monkeypatch.setattr(operations, "fetch_log", lambda actor, deployment: "")
    response = client.get(f"/deployments/{deployment_id}/log", headers=headers or {})
    assert response.status_code == 200
    return words(response.get_data(as_text=True))


def test_an_empty_log_of_a_job_not_started_says_it_has_not_started(
    client, login_as, make_deployment, monkeypatch
):
    job_id = a_job(make_deployment, login_as())

    shown = _log_page(client, monkeypatch, job_id)

    assert "Job log" in shown
    assert "There is no log yet: the job has not started." in shown
    italian = _log_page(client, monkeypatch, job_id, ITALIAN)
    assert "Non c'è ancora un log: il job non è ancora partito." in italian


def test_an_empty_log_of_a_job_that_ran_says_the_orchestrator_gave_none(
    client, login_as, make_deployment, monkeypatch
):
    job_id = a_job(
        make_deployment,
        login_as(),
        status="ready",
        site="ReCaS-Bari",
        deployment_type="CHRONOS",
    )

    shown = _log_page(client, monkeypatch, job_id)

    assert "The orchestrator gave no log for this job." in shown
    assert "not started" not in shown


def test_an_empty_log_of_a_service_says_it_is_empty_so_far(
    client, login_as, make_deployment, monkeypatch
):
    service_id = make_deployment(login_as())

    shown = _log_page(client, monkeypatch, service_id)

    assert "Deployment log" in shown and "The log is empty so far." in shown
