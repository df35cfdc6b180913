"""Many launches at the same moment, from several processes and app instances sharing one
database, never together exceed a limit."""

import pytest
from sqlalchemy import func, select

from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import TEST_CONFIG
from tests.processes import race as in_processes
from tests.quotas import launch_worker
from tests.quotas.conftest import Quotas

PROCESSES, APPS_PER_PROCESS, THREADS_PER_APP = 2, 2, 5  # 20 launches at once


def race(database_url, tmp_path, user_id, group, gpus_each):
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    arguments = (
        config,
        str(tmp_path / "instance"),
        user_id,
        group,
        gpus_each,
        APPS_PER_PROCESS,
        THREADS_PER_APP,
    )
    launches = PROCESSES * APPS_PER_PROCESS * THREADS_PER_APP
    return in_processes(
        launch_worker.run,
        [arguments] * PROCESSES,
        parties=launches,
        outcomes=launches,
        method="spawn",
    )


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


def test_a_new_users_first_launches_at_once_never_exceed_the_site_default(
    shared, database_url, tmp_path
):
    """No limits row of the user's own exists yet: the first launches create it, and still
    wait for each other."""
    user = shared.user()
    shared.limit("site", "", gpus="7")
    outcomes = race(database_url, tmp_path, user, None, gpus_each=1)
    assert [o for o in outcomes if o.startswith("error")] == []
    assert outcomes.count("admitted") == 7
    assert held_gpus(shared, user_id=user) == 7


def test_twenty_simultaneous_launches_never_exceed_a_group_pool(shared, database_url, tmp_path):
    user = shared.user(groups=["physics"])
    shared.limit("group", "physics", gpus="10")
    outcomes = race(database_url, tmp_path, user, "physics", gpus_each=2)
    assert [o for o in outcomes if o.startswith("error")] == []
    assert outcomes.count("admitted") == 5
    assert held_gpus(shared, group_name="physics") == 5


def _edit_in_a_process(config, user_id, key, value, start, results):
    # An operator's request on a host of its own: its own app, engine and connections.
    from app import create_app
    from app.quotas.editing import set_limits

    app = create_app(config)
    with app.app_context():
        start.wait()
        try:
            set_limits(None, "user", str(user_id), {key: value}, f"set {key}")
            results.put("saved")
        except Exception as error:  # reported to the test, which fails on it
            results.put(f"error: {error!r}")
        db.engine.dispose()


def test_operators_changing_one_users_limits_at_once_lose_nothing(shared, database_url):
    """Each sets another resource of the same user's limits, none set before: every change is
    kept, and the history's "old" of each is what the one before it left."""
    from app.quotas.models import QuotaChange

    user = shared.user()
    edits = {"cores": 8, "gpus": 2, "deployments": 3, "memory": 16 * 10**9, "disk": 10**11}
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}
    arguments = [(config, user, key, value) for key, value in edits.items()]
    outcomes = in_processes(_edit_in_a_process, arguments, parties=len(edits), outcomes=len(edits))
    assert outcomes == ["saved"] * len(edits), outcomes
    with shared.app.app_context():
        from app.quotas.models import QuotaLimit

        row = db.session.scalar(select(QuotaLimit).filter_by(scope="user", subject=str(user)))
        assert row.limits == edits
        changes = db.session.scalars(select(QuotaChange).order_by(QuotaChange.id)).all()
        assert [len(c.old) for c in changes] == list(range(len(edits)))
        for before, after in zip(changes, changes[1:], strict=False):
            assert after.old == before.new
