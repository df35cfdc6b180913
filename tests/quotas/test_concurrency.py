"""Many launches at the same moment, from several processes and app instances sharing one
database, never together exceed a limit."""

import multiprocessing

import pytest
from sqlalchemy import func, select

from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import TEST_CONFIG
from tests.quotas import launch_worker
from tests.quotas.conftest import Quotas

PROCESSES, APPS_PER_PROCESS, THREADS_PER_APP = 2, 2, 5  # 20 launches at once


def race(database_url, tmp_path, user_id, group, gpus_each):
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES * APPS_PER_PROCESS * THREADS_PER_APP)
    results = context.Queue()
    processes = [
        context.Process(
            target=launch_worker.run,
            args=(
                config,
                str(tmp_path / "instance"),
                user_id,
                group,
                gpus_each,
                APPS_PER_PROCESS,
                THREADS_PER_APP,
                barrier,
                results,
            ),
        )  # fmt: skip
        for _ in range(PROCESSES)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in range(20)]
    for process in processes:
        process.join(30)
        assert process.exitcode == 0
    return outcomes


@pytest.fixture
def shared(make_app, database_url):
    return Quotas(make_app(SQLALCHEMY_DATABASE_URI=database_url))


def held_gpus(quotas, **where):
    with quotas.app.app_context():
        return db.session.scalar(select(func.count()).select_from(Deployment).filter_by(**where))


def test_twenty_simultaneous_launches_never_exceed_the_users_gpu_limit(
    shared, database_url, tmp_path
):
    user = shared.user()
    shared.limit("user", user, gpus="7")
    outcomes = race(database_url, tmp_path, user, None, gpus_each=1)
    assert [o for o in outcomes if o.startswith("error")] == []
    assert outcomes.count("admitted") == 7
    assert outcomes.count("refused") == 13
    assert held_gpus(shared, user_id=user) == 7


def test_twenty_simultaneous_launches_never_exceed_a_group_pool(shared, database_url, tmp_path):
    user = shared.user(groups=["physics"])
    shared.limit("group", "physics", gpus="10")
    outcomes = race(database_url, tmp_path, user, "physics", gpus_each=2)
    assert [o for o in outcomes if o.startswith("error")] == []
    assert outcomes.count("admitted") == 5
    assert held_gpus(shared, group_name="physics") == 5
