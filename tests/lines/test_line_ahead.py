"""A launch comes behind everyone already in line: one that fits its quotas does not start at
once when it would take what a request waiting ahead of it waits for (``app.lines.ahead``).
It may wait in line instead; the form, the API and rcp say so. What the line does not wait for
(another resource, another owner's own limit) still starts at once, a changed request keeps
its place, and the line's own admission is never held back by itself."""

import pytest
from sqlalchemy import func, select

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.deployments.models import Deployment
from app.extensions import db
from app.launch.changing import change
from app.launch.request import LaunchRequest
from app.lines.models import LineEntry
from app.lines.places import position
from app.quotas.errors import KeptForLine
from tests.api.conftest import Callers
from tests.conftest import csrf_from
from tests.lines.test_api import launch as api_launch
from tests.lines.test_api import portal  # noqa: F401 - the API's portal fixture
from tests.lines.test_pages import _form, _login


def _free(line, deployment_id):
    """Delete ``deployment_id`` and let the orchestrator finish: what it held comes back."""
    from app.deployments.operations import delete

    uuid = line.emulated.row(deployment_id).uuid
    line.emulated.emulator.set_status(uuid, "CREATE_COMPLETE")
    line.emulated.sync()
    with line.app.app_context():
        row = db.session.get(Deployment, deployment_id)
        delete(db.session.get(User, row.user_id), row)
    line.emulated.emulator.set_status(uuid, "DELETE_COMPLETE")
    line.emulated.sync()


def _count(line) -> int:
    with line.app.app_context():
        return db.session.scalar(select(func.count()).select_from(Deployment))


def test_a_launch_that_fits_does_not_take_what_the_first_in_line_waits_for(line):
    ada, bea, cy = (line.emulated.user(name) for name in ("ada", "bea", "cy"))
    line.pool(gpus="2")
    held = line.launch(ada)
    first = line.wait(bea, gpus=2)
    assert first.status == "WAITING"
    before = _count(line)
    # One GPU is free and cy's quota lets him take it, but bea waits for it.
    with pytest.raises(KeptForLine) as refused:
        line.launch(cy)
    assert "1 request waits ahead of this one for GPUs in group physics" in refused.value.message
    assert _count(line) == before  # nothing recorded
    # Waiting, cy comes second; when ada's GPU comes back bea starts, and cy still waits.
    second = line.wait(cy)
    assert second.status == "WAITING"
    with line.app.app_context():
        assert position(db.session.get(LineEntry, second.id)) == 2
    assert line.admit().admitted == 0
    _free(line, held)
    assert line.admit().admitted == 1
    assert line.status(first.id) == "creating"
    assert line.status(second.id) == "WAITING"


def test_a_persons_own_earlier_request_is_named_as_theirs(line):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="2")
    line.launch(bea)
    assert line.wait(ada, gpus=2).status == "WAITING"
    with pytest.raises(KeptForLine) as refused:
        line.launch(ada)
    assert refused.value.message.startswith(
        "Your own request that joined earlier waits for GPUs in group physics"
    )


def test_what_the_line_does_not_wait_for_still_starts_at_once(line):
    ada, bea, cy = (line.emulated.user(name) for name in ("ada", "bea", "cy"))
    line.pool(gpus="2", gpu_models={"T4": "1"})
    line.launch(ada)
    line.launch(ada, model="T4")
    assert line.wait(bea, gpus=2).status == "WAITING"
    # No GPU at all: the pool limits GPUs only, so nothing the line waits for is taken.
    assert line.launch(cy, gpus=0)


def test_a_request_on_its_owners_own_limit_keeps_nothing_of_the_pool(line):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="4")
    line.own(bea, gpus="1")
    line.launch(bea)
    assert line.wait(bea).status == "WAITING"  # short of her own limit only
    assert line.launch(ada, gpus=2)  # the pool has room, and no one waits for it


def test_a_changed_request_keeps_its_place_and_is_not_held_behind_itself(line):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="2")
    line.launch(ada)
    first = line.wait(bea, gpus=2)
    with line.app.app_context():
        changed = change(
            LaunchRequest(
                db.session.get(User, bea),
                catalogue().get("gpu-machine"),
                {"num_gpus": 1, "gpu_model": "A100"},
                group="physics",
            ),
            first.id,
        )
        assert changed.status != "WAITING"  # first in line, and one GPU is free
        assert db.session.get(LineEntry, first.id) is None


def test_a_change_of_a_later_request_stays_behind_the_earlier_one(line):
    ada, bea, cy = (line.emulated.user(name) for name in ("ada", "bea", "cy"))
    line.pool(gpus="2")
    line.launch(ada)
    first = line.wait(bea, gpus=2)
    later = line.wait(cy, gpus=2)
    with line.app.app_context():
        changed = change(
            LaunchRequest(
                db.session.get(User, cy),
                catalogue().get("gpu-machine"),
                {"num_gpus": 1, "gpu_model": "A100"},
                group="physics",
            ),
            later.id,
        )
        assert changed.status == "WAITING"
        assert position(db.session.get(LineEntry, changed.id)) == 2
        assert db.session.get(LineEntry, first.id) is not None


def test_with_lines_off_a_launch_that_fits_starts(line):
    ada, bea, cy = (line.emulated.user(name) for name in ("ada", "bea", "cy"))
    line.pool(gpus="2")
    line.launch(ada)
    assert line.wait(bea, gpus=2).status == "WAITING"
    line.app.config["LINE_ENABLED"] = False
    assert line.launch(cy)


def test_the_form_says_others_come_first_and_offers_the_line(line):
    client, cy = _login(line, "cy")
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="2")
    line.launch(ada)
    line.wait(bea, gpus=2)
    page, data = _form(client)
    assert "Fits your quota, but the line comes first:" in page
    assert 'data-launchable="no"' in page and 'data-can-wait="yes"' in page
    assert "Launch is off while requests in line come first for what this needs" in page
    refused = client.post("/catalogue/gpu-machine/", data=data)
    assert refused.status_code == 409
    assert "1 request waits ahead of this one" in refused.get_data(as_text=True)
    waited = client.post("/catalogue/gpu-machine/", data={**data, "wait_in_line": "1"})
    assert waited.status_code == 302
    detail = client.get(waited.headers["Location"]).get_data(as_text=True)
    assert "2nd in line for GPUs in group physics" in detail

    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    page = client.get("/catalogue/gpu-machine/").get_data(as_text=True)
    assert "Rientra nella tua quota, ma la coda viene prima:" in page
    assert csrf_from(page)


def test_the_api_answers_line_ahead_and_the_dry_run_says_so_beforehand(portal):  # noqa: F811
    callers = Callers(portal)
    ada, bea, cy = callers("ada"), callers("bea"), callers("cy")
    assert api_launch(ada).status_code == 201  # one of the pool's two GPUs
    assert api_launch(bea, gpus=2, wait=True).status_code == 202
    dry = cy.post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "gpu-machine", "parameters": {"num_gpus": 1}, "group": "physics"},
    ).get_json()
    assert dry["fit"]["fits"] is True
    assert "1 request waits ahead of this one for GPUs in group physics" in dry["line_ahead"]
    refused = api_launch(cy)
    assert refused.status_code == 409
    problem = refused.get_json()
    assert problem["type"].endswith("/problems/line-ahead")
    assert problem["can_wait"] is True and problem["fit"]["fits"] is True
    waited = api_launch(cy, wait=True)
    assert waited.status_code == 202 and waited.get_json()["queue"]["position"] == 2
    alone = callers("dee").post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "gpu-machine", "parameters": {"num_gpus": 0}, "group": "physics"},
    )
    assert alone.get_json()["line_ahead"] is None


def test_a_change_keeps_its_fair_share_place_however_long_its_owner_has_held_gpus(line, clock):
    ada, bea = line.emulated.user("ada"), line.emulated.user("bea")
    line.pool(gpus="2")
    line.launch(ada, gpus=2)
    first = line.wait(ada, gpus=2)
    clock.move(minutes=1)
    behind = line.wait(bea, gpus=2)
    # Two hours on, ada's two GPUs have held four more GPU-hours: joining now would move her
    # back four minutes, behind bea. Her change keeps the place her request had.
    clock.move(hours=2)
    with line.app.app_context():
        changed = change(
            LaunchRequest(
                db.session.get(User, ada),
                catalogue().get("gpu-machine"),
                {"num_gpus": 1, "gpu_model": "A100"},
                group="physics",
            ),
            first.id,
        )
        assert changed.status == "WAITING"
        assert position(db.session.get(LineEntry, changed.id)) == 1
        assert position(db.session.get(LineEntry, behind.id)) == 2
