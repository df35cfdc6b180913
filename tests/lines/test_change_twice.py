"""Two browser tabs changing the same waiting request: the first change claims it, the second
is refused in words, and one request stays in line."""

import threading

import pytest
from sqlalchemy import select

from app.auth.models import User
from app.catalogue.loader import catalogue
from app.deployments.models import Deployment
from app.extensions import db
from app.launch import workflow
from app.launch.changing import change
from app.launch.request import LaunchRequest
from app.lines.changing import ChangeUnderway


def _change(app, user_id, replaces, name):
    with app.app_context():
        asked = LaunchRequest(
            db.session.get(User, user_id),
            catalogue().get("gpu-machine"),
            {"num_gpus": 1, "gpu_model": "A100"},
            name=name,
            group="physics",
        )
        return change(asked, replaces).id


def test_a_second_change_while_the_first_is_under_way_is_refused_and_one_request_stays(
    line, monkeypatch
):
    ada = line.emulated.user("ada")
    line.pool(gpus="1")
    line.launch(ada)  # holds the pool's only GPU
    first = line.wait(ada, name="first")
    assert first.status == "WAITING"

    # The first tab's change is held just after it claimed the request, in its own thread
    # (its own session and connection), while the second tab's change runs.
    claimed, go_on = threading.Event(), threading.Event()
    original = workflow.launch

    def held(*args, **kwargs):
        # Called by the change once it claimed the request.
        if threading.current_thread().name == "first-tab":
            claimed.set()
            assert go_on.wait(60)
        return original(*args, **kwargs)

    monkeypatch.setattr(workflow, "launch", held)
    outcome = {}

    def first_tab():
        try:
            outcome["id"] = _change(line.app, ada, first.id, "changed in tab one")
        except Exception as error:  # reported below
            outcome["error"] = error

    tab = threading.Thread(target=first_tab, name="first-tab")
    tab.start()
    try:
        assert claimed.wait(60)
        with pytest.raises(ChangeUnderway) as refused:
            _change(line.app, ada, first.id, "changed in tab two")
        assert "being changed in another tab or window" in refused.value.message
    finally:
        go_on.set()
        tab.join(60)
    assert "error" not in outcome, outcome.get("error")

    with line.app.app_context():
        waiting = db.session.scalars(
            select(Deployment.name).where(
                Deployment.user_id == ada,
                Deployment.status == "WAITING",
                Deployment.deleted.is_(False),
            )
        ).all()
    assert waiting == ["changed in tab one"]

    # A change that fails lets go of the request: the next change is not refused.
    with line.app.app_context():
        db_id = db.session.scalar(select(Deployment.id).where(Deployment.name == waiting[0]))
    monkeypatch.setattr(workflow, "launch", lambda *a, **k: _fail())
    with pytest.raises(RuntimeError):
        _change(line.app, ada, db_id, "broken")
    monkeypatch.setattr(workflow, "launch", original)
    changed = _change(line.app, ada, db_id, "mended")
    assert line.status(changed) == "WAITING"


def _fail():
    raise RuntimeError("the change failed")
