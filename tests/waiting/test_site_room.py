"""The second reason to wait: a request its quotas let start stays in line while every known
site says it has no room for it, and starts once one has; numbers that are stale never hold it
back."""

from app.capacity.models import Site
from app.extensions import db
from tests.launch.site_support import add_site


def _free_the_pool(line, ada, first):
    uuid = line.emulated.row(first).uuid
    line.emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    with line.app.app_context():
        from app.auth.models import User
        from app.deployments.models import Deployment
        from app.deployments.operations import delete

        delete(db.session.get(User, ada), db.session.get(Deployment, first))
    line.emulated.emulator.set_status(uuid, "DELETE_COMPLETE")
    line.emulated.sync()


def _set_free_a100(line, count: int, minutes_old: float = 2) -> None:
    with line.app.app_context():
        site = db.session.scalar(db.select(Site).where(Site.name == "RECAS-BARI"))
        if site is not None:
            db.session.delete(site)
            db.session.commit()
    add_site(line.app, "RECAS-BARI", minutes_old=minutes_old, gpus={"A100": count})


def test_a_request_waits_for_a_site_with_room_once_its_quota_lets_it_start(line):
    line.app.config["CAPACITY_SOURCES"] = [{"kind": "cluster-stats", "url": "http://x"}]
    ada = line.emulated.user("ada")
    line.pool(gpus="1")
    first = line.launch(ada)
    waiting = line.wait(ada)
    assert waiting.status == "WAITING"
    _free_the_pool(line, ada, first)
    _set_free_a100(line, 0)  # the quota has room again, the only site has no A100 free

    assert line.admit().admitted == 0
    assert line.status(waiting.id) == "WAITING"

    _set_free_a100(line, 1)
    assert line.admit().admitted == 1
    assert line.status(waiting.id) == "creating"


def test_stale_numbers_never_hold_a_request_back(line):
    line.app.config["CAPACITY_SOURCES"] = [{"kind": "cluster-stats", "url": "http://x"}]
    ada = line.emulated.user("ada")
    line.pool(gpus="1")
    first = line.launch(ada)
    waiting = line.wait(ada)
    _free_the_pool(line, ada, first)
    _set_free_a100(line, 0, minutes_old=60 * 24)  # a day old: "may not fit", not "does not"

    assert line.admit().admitted == 1
    assert line.status(waiting.id) == "creating"
