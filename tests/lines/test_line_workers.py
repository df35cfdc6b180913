"""The line end to end, with two portal processes running the admission pass at the same
moments on one database, and time moved for every process through one clock file.

A group pool of 2 GPUs is held by two leased deployments; 30 requests from 10 people wait.
Leases end one after another (each admitted request runs 10 minutes): every request starts
exactly once, in the written-down order (first come; a person with recent GPU-hours moved
back), never more than the pool at any moment, and each person is told; someone launching
outside the line meanwhile never starts past them. On the way, two
people leave the line, and the requests of one person whose own limit stays full are dropped
at the longest wait.
"""

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.auth.models import User
from app.clock import OffsetFileClock, utcnow
from app.deployments import operations as deployments
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.leases.expiry import expire_once
from app.lines import operations
from app.notifications.models import Notification
from app.quotas.errors import KeptForLine, QuotaExceeded
from app.quotas.usage import usage_of
from tests.conftest import TEST_CONFIG
from tests.deployments.conftest import SERVICE_TOKEN

WORKER = """
import json, sys, time
from pathlib import Path
from app import create_app
from app.launch.admission import admit_once

config, instance, folder, name = json.loads(sys.argv[1]), *sys.argv[2:5]
folder = Path(folder)
app = create_app(config, instance_path=instance)
admitted = {}
step = 0
with app.app_context():
    while True:
        (folder / f"ready-{step}-{name}").touch()
        while not (folder / f"go-{step}").exists() and not (folder / "stop").exists():
            time.sleep(0.005)
        if (folder / "stop").exists():
            break
        result = admit_once()
        admitted[step] = result.admitted
        (folder / f"done-{step}-{name}").touch()
        step += 1
print(json.dumps(admitted))
"""
WORKERS = 2
PEOPLE = 10
EACH = 3


@pytest.fixture
def emulated_settings(emulated_settings, tmp_path):  # noqa: F811 - extends the shared one
    return {
        **emulated_settings,
        "CLOCK_OFFSET_FILE": str(tmp_path / "clock-offset"),
        "LINE_MAX_WAIT": "4h",
        "LINE_FAIR_SHARE": True,
        "LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR": 1,
        "ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS": None,
    }


def _wait_for(folder: Path, names, workers) -> None:
    deadline = time.monotonic() + 120
    while not all((folder / name).exists() for name in names):
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers), [
            w.communicate() for w in workers if w.poll() is not None
        ]
        time.sleep(0.01)


def _past_gpu_hours(app, user_id: int, hours: int) -> None:
    """A deployment of one GPU that ran ``hours`` hours and was deleted two hours ago."""
    with app.app_context():
        now = utcnow()
        db.session.add(
            Deployment(
                user_id=user_id,
                name="last week's training",
                template_slug="gpu-machine",
                template_name="GPU machine",
                group_name="physics",
                parameters={},
                outputs={},
                request_options={},
                charge={"gpus": 1, "gpu_models": {"A100": 1}, "cores": 1, "deployments": 1},
                status="deleted",
                deleted=True,
                created_at=now - timedelta(hours=hours + 2),
                submitted_at=now - timedelta(hours=hours + 2),
                deleted_at=now - timedelta(hours=2),
                check_failures=0,
            )
        )
        db.session.commit()


def _ready(line, deployment_ids) -> None:
    for deployment_id in deployment_ids:
        line.emulated.emulator.set_status(line.emulated.row(deployment_id).uuid, "CREATE_COMPLETE")
    line.emulated.sync()


def _end_due_leases(line) -> None:
    """Leases due end; their deletes are asked, finish at the orchestrator, and sync learns it."""
    with line.app.app_context():
        expire_once()  # the end (no grace: the delete is due at once)
        expire_once()  # the delete
        deleting = list(
            db.session.scalars(select(Deployment.uuid).where(Deployment.status == "deleting"))
        )
    for uuid in deleting:
        line.emulated.emulator.set_status(uuid, "DELETE_COMPLETE")
    line.emulated.sync()


def _started(app) -> list[int]:
    """The requests admitted from the line, in the order they were admitted."""
    with app.app_context():
        rows = db.session.execute(
            select(DeploymentEvent.deployment_id)
            .where(DeploymentEvent.kind == "line-started")
            .order_by(DeploymentEvent.at, DeploymentEvent.id)
        )
        return [row for (row,) in rows]


def _pool_gpus(app) -> int:
    with app.app_context():
        return usage_of(group_name="physics").gpus


def test_two_portal_processes_admit_thirty_waiting_requests_once_each_in_order(line, tmp_path):
    app = line.app
    clock = OffsetFileClock(tmp_path / "clock-offset")
    line.leases.policy(default="10m", max_initial="1d", grace="0m")
    line.pool(gpus="2")
    hal = line.emulated.user("hal")
    outsider = line.emulated.user("oz")
    holders = [line.launch(hal, minutes=10), line.launch(hal, minutes=15)]
    _ready(line, holders)
    people = [line.emulated.user(f"p{n}", groups=("physics", "chemistry")) for n in range(PEOPLE)]
    heavy, full = people[0], people[-1]
    _past_gpu_hours(app, heavy, hours=10)  # 10 GPU-hours: moved back 10 minutes
    # The last person's own limit is 1 GPU, held for a day by a deployment charged elsewhere.
    line.own(full, gpus="1")
    with app.app_context():
        from app.catalogue.loader import catalogue
        from app.launch.request import LaunchRequest, LeaseChoice
        from app.launch.workflow import launch

        owner = db.session.get(User, full)
        elsewhere = launch(
            LaunchRequest(
                owner,
                catalogue().get("gpu-machine"),
                {"num_gpus": 1, "gpu_model": "A100"},
                group="chemistry",
                lease=LeaseChoice(24 * 60),
            )
        ).id
    _ready(line, [elsewhere])

    joined: dict[int, list[int]] = {person: [] for person in people}
    for round_number in range(EACH):
        clock.set_offset(timedelta(minutes=round_number))
        for n, person in enumerate(people):
            request = line.wait(person, name=f"p{n}-{round_number}")
            assert request.status == "WAITING"
            joined[person].append(request.id)
    waiting_ids = [i for ids in joined.values() for i in ids]
    assert len(waiting_ids) == PEOPLE * EACH
    # Two leave on the way: one from its page's delete, one through the line's own verb.
    with app.app_context():
        p3 = db.session.get(User, people[3])
        deployments.delete(p3, db.session.get(Deployment, joined[people[3]][1]))
        p5 = db.session.get(User, people[5])
        operations.leave(p5, db.session.get(Deployment, joined[people[5]][2]))
    left = {joined[people[3]][1], joined[people[5]][2]}

    # The written-down order: rounds in turn, people in the order they joined; the heavy user's
    # requests 10 minutes back (behind the three rounds, a minute apart); the last person's
    # never fit their own limit and are dropped at the longest wait.
    light = people[1:-1]
    expected = [joined[p][r] for r in range(EACH) for p in light]
    expected += joined[heavy]
    expected = [request for request in expected if request not in left]

    config = {
        **TEST_CONFIG,
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
        "ORCHESTRATOR_URL": line.emulated.emulator.url,
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": SERVICE_TOKEN},
        "ORCHESTRATOR_TIMEOUT": [2, 10],
        "CLOCK_OFFSET_FILE": str(clock.path),
        "LAUNCHES_PER_MINUTE": 0,
        "LINE_MAX_WAIT": "4h",
        "PORTAL_BASE_URL": app.config["PORTAL_BASE_URL"],
    }
    root = Path(__file__).resolve().parents[2]
    folder = tmp_path / "steps"
    folder.mkdir()
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                json.dumps(config),
                str(tmp_path / f"i{n}"),
                str(folder),
                str(n),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    try:
        step, minute, readied, kept = 0, 5, [], 0
        while len(_started(app)) < len(expected) and step < 60:
            # Five more minutes: the next lease ends (one every five minutes).
            minute += 5
            clock.set_offset(timedelta(minutes=minute, seconds=1))
            _end_due_leases(line)
            _wait_for(folder, [f"ready-{step}-{n}" for n in range(WORKERS)], workers)
            # Someone outside the line launches, before the pass and while it runs: never past
            # those waiting, and never past the pool, whatever the passes have started by then.
            with pytest.raises(QuotaExceeded) as outside:
                line.launch(outsider)
            kept += isinstance(outside.value, KeptForLine)
            (folder / f"go-{step}").touch()
            with pytest.raises(QuotaExceeded):
                line.launch(outsider)
            _wait_for(folder, [f"done-{step}-{n}" for n in range(WORKERS)], workers)
            started = _started(app)
            # Never more than the pool, whoever admitted what.
            assert _pool_gpus(app) <= 2, step
            assert started == expected[: len(started)], (step, started)
            _ready(line, started[len(readied) :])
            readied = started
            step += 1
        # The longest wait passes for the last person's requests.
        clock.set_offset(timedelta(hours=4, minutes=5))
        _wait_for(folder, [f"ready-{step}-{n}" for n in range(WORKERS)], workers)
        (folder / f"go-{step}").touch()
        _wait_for(folder, [f"done-{step}-{n}" for n in range(WORKERS)], workers)
    finally:
        (folder / "stop").touch()
        outcomes = [w.communicate(timeout=120) for w in workers]
    assert all(w.returncode == 0 for w in workers), outcomes
    assert kept > 0  # a GPU came back each time a lease ended, and it was kept for the line

    started = _started(app)
    with app.app_context():
        missing = [
            (i, db.session.get(Deployment, i).status, db.session.get(Deployment, i).status_reason)
            for i in expected
            if i not in started
        ]
    assert started == expected, (step, missing)
    totals = [json.loads(out.strip().splitlines()[-1]) for out, _err in outcomes]
    assert sum(sum(t.values()) for t in totals) == len(expected)
    with app.app_context():
        events = Counter(
            (deployment_id, kind)
            for deployment_id, kind in db.session.execute(
                select(DeploymentEvent.deployment_id, DeploymentEvent.kind).where(
                    DeploymentEvent.kind.like("line-%")
                )
            )
        )
        # Each request started once, and each person was told, once per request.
        assert {events[(i, "line-started")] for i in expected} == {1}
        told = Counter(
            (n.user_id, n.deployment_id, n.kind)
            for n in db.session.scalars(
                select(Notification).where(Notification.kind.like("line-%"))
            )
        )
        for request in expected:
            owner = db.session.get(Deployment, request).user_id
            assert told[(owner, request, "line-started")] == 1
        for request in joined[full]:
            assert db.session.get(Deployment, request).status == "NOT_LAUNCHED"
            assert told[(full, request, "line-dropped")] == 1
        for request in left:
            assert db.session.get(Deployment, request).status == "NOT_LAUNCHED"
        assert db.session.scalar(select(func.count()).where(Deployment.status == "WAITING")) == 0
    # Each one was sent to the orchestrator once: the holders, the one elsewhere, the admitted.
    assert line.emulated.posts() == len(holders) + 1 + len(expected)
