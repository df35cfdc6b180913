"""Batch jobs (Chronos) wait in the same lines: a job that needs the GPU another job holds
waits, and starts once that job has run and finished for good."""

from pathlib import Path

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.catalogue.operations import publish, save_revision
from app.extensions import db
from app.launch import workflow
from app.launch.request import LaunchRequest

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"
JOB = {"num_gpus": 1, "command": "python train.py", "schedule": "R1//P1D"}


def test_a_batch_job_waits_for_the_gpu_another_job_holds_and_starts_after_it(line):
    with line.app.app_context():
        save_revision(
            "chronos-gpu-job",
            (CATALOGUE / "chronos-gpu-job.yaml").read_text(),
            (CATALOGUE / "chronos-gpu-job.portal.yaml").read_text(),
            "test",
            create=True,
        )
        publish("chronos-gpu-job", "test")
    ada = line.emulated.user("ada")
    line.pool(gpus="1")
    first = line.emulated.launch(ada, "chronos-gpu-job", JOB, group="physics")
    with line.app.app_context():
        asked = LaunchRequest(
            db.session.get(User, ada),
            catalogue().get("chronos-gpu-job"),
            dict(JOB),
            group="physics",
        )
        waiting = workflow.launch(asked, wait=True)
        second = waiting.id
        assert waiting.status == "WAITING" and waiting.runs_once
    assert line.admit().admitted == 0
    # The first job runs once and succeeds: it holds nothing any more.
    line.emulated.emulator.set_status(line.emulated.row(first).uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    assert line.admit().admitted == 1
    assert line.status(second) not in ("WAITING", "NOT_LAUNCHED")
