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


def _api_portal(make_app):
    from app.catalogue.operations import publish, save_revision
    from app.quotas.editing import parse_limit, set_limits
    from tests.lines.conftest import GPU_SIDECAR, GPU_TEMPLATE

    app = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        LAUNCHES_PER_MINUTE=0,
        CAPACITY_SOURCES=[{"kind": "cluster-stats", "url": "http://x", "site": "RECAS-BARI"}],
    )
    with app.app_context():
        save_revision("gpu-machine", GPU_TEMPLATE, GPU_SIDECAR, "test", create=True)
        publish("gpu-machine", "test")
        set_limits(None, "group", "physics", {"gpus": parse_limit("gpus", "4")}, "test")
    return app


def test_with_no_site_free_the_api_offers_the_line_and_a_waiting_request_starts_later(make_app):
    from app.launch.admission import admit_once
    from tests.api.conftest import Callers

    app = _api_portal(make_app)
    add_site(app, "RECAS-BARI", gpus={"A100": 0, "T4": 0})
    ada = Callers(app)("ada")
    body = {
        "template": "gpu-machine",
        "parameters": {"num_gpus": 1, "gpu_model": "A100"},
        "group": "physics",
    }
    dry = ada.post("/api/v1/deployments?dry_run=true", json=body).get_json()
    assert dry["fit"]["fits"] is True  # the quota has room: only the sites do not
    waiting = ada.post("/api/v1/deployments", json={**body, "wait": True})
    assert waiting.status_code == 202, waiting.get_json()
    data = waiting.get_json()
    assert data["status"] == "WAITING" and data["queue"]["position"] == 1
    page = ada.get(f"/api/v1/deployments/{data['id']}").get_json()
    assert page["queue"]["position"] == 1

    with app.app_context():
        assert admit_once().admitted == 0
        site = db.session.scalar(db.select(Site).where(Site.name == "RECAS-BARI"))
        site.snapshot.gpus = {"A100": 1}
        db.session.commit()
        assert admit_once().admitted == 1
    assert ada.get(f"/api/v1/deployments/{data['id']}").get_json()["status"] != "WAITING"


def test_without_wait_a_request_no_site_has_room_for_is_held_and_offered_the_line(make_app):
    from app.deployments.models import Deployment
    from tests.api.conftest import Callers

    app = _api_portal(make_app)
    add_site(app, "RECAS-BARI", gpus={"A100": 0})
    ada = Callers(app)("ada")
    body = {"template": "gpu-machine", "parameters": {"num_gpus": 1}, "group": "physics"}
    answer = ada.post("/api/v1/deployments", json=body)
    assert answer.status_code == 409, answer.get_json()
    problem = answer.get_json()
    assert problem["type"].endswith("/no-site-room")
    assert problem["can_wait"] is True
    assert "No known site has room for this now" in problem["detail"]
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(Deployment.id))) == 0


def test_stale_numbers_never_hold_a_launch_back(make_app):
    from tests.api.conftest import Callers

    app = _api_portal(make_app)
    add_site(app, "RECAS-BARI", gpus={"A100": 0}, minutes_old=60 * 24)
    ada = Callers(app)("ada")
    body = {"template": "gpu-machine", "parameters": {"num_gpus": 1}, "group": "physics"}
    # A day-old "nothing free" may be wrong: only fresh numbers hold a launch back.
    assert ada.post("/api/v1/deployments", json=body).status_code == 201


def test_a_place_in_a_site_line_is_estimated_from_the_portals_own_holders_only(line):
    from app.leases.models import Lease
    from app.lines.models import LineEntry
    from app.lines.presenters import place_of

    line.app.config["CAPACITY_SOURCES"] = [{"kind": "cluster-stats", "url": "http://x"}]
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="8")
    _set_free_a100(line, 0)
    first = line.wait(bea)  # no site has an A100 free, and the portal holds none
    assert first.status == "WAITING"
    with line.app.app_context():
        place = place_of(db.session.get(LineEntry, first.id))
        assert place.due_back is None
        assert place.sentence.endswith("the sites do not say when room comes back.")
        assert "no end set" not in place.sentence

    _set_free_a100(line, 1)
    line.leases.policy(default="2h")
    held = line.launch(ada)  # the portal's own A100, leased for two hours
    line.emulated.emulator.set_status(line.emulated.row(held).uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    _set_free_a100(line, 0)
    with line.app.app_context():
        ends = db.session.scalar(db.select(Lease.ends_at).where(Lease.deployment_id == held))
        place = place_of(db.session.get(LineEntry, first.id))
        assert ends is not None and place.due_back == ends
        assert "the portal's own deployments holding them end by about" in place.sentence
        assert "the sites' other users are not known" in place.sentence
