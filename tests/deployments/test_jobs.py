"""A batch job reads as a job: queued, scheduled, running, succeeded or failed, with when it
runs next, while services keep their own words."""

from datetime import datetime
from pathlib import Path

import pytest
from flask import Flask
from flask_babel import Babel

from app.clock import use_clock
from app.deployments import jobs
from app.deployments.models import Deployment

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"
JOB = (CATALOGUE / "chronos-gpu-job.yaml").read_text()
VM = (CATALOGUE / "vm.yaml").read_text()
NOW = datetime(2026, 11, 25, 10, 0)


@pytest.fixture(autouse=True)
def babel_app():
    app = Flask(__name__)
    Babel(app)
    with app.app_context(), use_clock(lambda: NOW):
        yield app


def job(status: str, schedule: str = "R1//P1D", site: str | None = "ReCaS-Bari", **more):
    return Deployment(
        status=status,
        template_text=JOB,
        parameters={"command": "python train.py", "schedule": schedule},
        site=site,
        deployment_type="CHRONOS" if site else None,
        created_at=datetime(2026, 11, 25, 9, 0),
        submitted_at=datetime(2026, 11, 25, 9, 0),
        **more,
    )


def test_a_job_not_yet_at_a_site_is_queued():
    look = jobs.look_of(job("creating", site=None))
    assert look.label == "Queued"


def test_a_job_at_a_site_whose_schedule_has_started_is_running():
    look = jobs.look_of(job("creating"))
    assert (look.label, look.tone) == ("Running", "info")
    assert "ReCaS-Bari" in look.meaning


def test_a_job_scheduled_later_says_when_it_first_runs():
    look = jobs.look_of(job("creating", "R10/2026-11-26T02:00:00Z/PT6H"))
    assert look.label == "Scheduled"
    assert look.meaning == "Its first run is on Nov 26, 2026, 02:00 UTC."


def test_a_job_run_once_has_succeeded_and_a_repeating_one_says_when_it_runs_next():
    assert jobs.look_of(job("ready")).meaning == "It ran and succeeded."
    daily = jobs.look_of(job("ready", "R5//P1D"))
    assert daily.label == "Succeeded"
    assert daily.meaning == "Its first run succeeded. It runs next on Nov 26, 2026, 09:00 UTC."


def test_a_failed_job_says_it_ran_and_failed():
    look = jobs.look_of(job("failed", status_reason="Chronos job x failed to execute"))
    assert (look.label, look.tone) == ("Failed", "danger")
    assert "ran and failed" in look.meaning


def test_the_plan_of_a_job_words_its_schedule_and_keeps_the_iso_text_for_admins():
    plan = jobs.plan_of(job("creating", "R10/2026-11-26T02:00:00Z/PT6H"))
    assert plan == {
        "words": "Every 6 hours, 10 times, from Nov 26, 2026, 02:00 UTC",
        "next": None,  # the status says when its first run is
        "iso": "R10/2026-11-26T02:00:00Z/PT6H",
        "counted": (
            "A repeating job holds its cores, memory and GPUs against your quota from launch "
            "until you delete it, between runs too: each run needs the same room."
        ),
    }


def test_a_jobs_timeline_speaks_of_runs():
    looks = jobs.step_looks(job("failed"))
    assert [looks(s).label for s in ("creating", "failed")] == [
        "Queued",
        "Failed",
    ]


def test_a_service_keeps_its_own_words():
    vm = Deployment(status="ready", template_text=VM, deployment_type="OPENSTACK")
    assert not jobs.is_job(vm) and jobs.plan_of(vm) is None
    assert jobs.look_of(vm).label == "Ready" and jobs.step_looks(vm) is None
