"""A group's managers move and remove the requests charged to their group, as operators do:
with a reason, the owner told who did it and why; a manager of another group is answered 404,
and the Lines page shows a manager the controls on their group's requests only."""

from sqlalchemy import select

from app.auth import managers
from app.auth.models import User
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.notifications.models import Notification
from app.notifications.wording import compose
from tests.conftest import csrf_from
from tests.lines.test_pages import _login


def _manager(line, username, group):
    client, user_id = _login(line, username)
    with line.app.app_context():
        db.session.get(User, user_id).groups = ["staff"]
        db.session.commit()
        managers.name_manager(group, db.session.get(User, user_id), "test")
    return client, user_id


def _notices(line, owner_id, kind):
    with line.app.app_context():
        found = db.session.scalars(
            select(Notification).where(Notification.user_id == owner_id, Notification.kind == kind)
        ).all()
        return [compose(notice) for notice in found]


def test_a_manager_of_the_group_moves_and_removes_its_requests_and_the_owner_is_told(line):
    _ada_client, ada = _login(line, "ada")
    manager, _mia = _manager(line, "mia", "physics")
    line.pool(gpus="1")
    line.launch(ada)
    first, second = line.wait(ada, name="req-alpha"), line.wait(ada, name="req-beta")

    page = manager.get("/lines/").get_data(as_text=True)
    assert "The requests charged to the groups you manage (physics)" in page
    assert page.count('action="/lines/') == 4  # move and remove, on both requests
    token = csrf_from(page)

    no_reason = manager.post(f"/lines/{second.id}/move", data={"csrf_token": token, "place": "1"})
    assert no_reason.status_code == 302
    assert "Say why" in manager.get("/lines/").get_data(as_text=True)

    moved = manager.post(
        f"/lines/{second.id}/move",
        data={"csrf_token": token, "place": "1", "reason": "thesis deadline"},
    )
    assert moved.status_code == 302
    page = manager.get("/lines/").get_data(as_text=True)
    assert page.index("req-beta") < page.index("req-alpha")

    removed = manager.post(
        f"/lines/{first.id}/remove", data={"csrf_token": token, "reason": "a duplicate"}
    )
    assert removed.status_code == 302
    assert line.status(first.id) == "NOT_LAUNCHED"

    with line.app.app_context():
        events = db.session.scalars(
            select(DeploymentEvent).where(DeploymentEvent.kind.in_(["line-moved", "line-removed"]))
        ).all()
        assert sorted((e.kind, e.source) for e in events) == [
            ("line-moved", "manager"),
            ("line-removed", "manager"),
        ]
        assert db.session.get(Deployment, first.id).status_reason == (
            "Removed from the line by a manager of its group; nothing was launched."
        )
    moved_notice = _notices(line, ada, "line-moved")[0]
    assert "mia, a manager of group physics, moved req-beta to place 1" in " ".join(
        moved_notice.paragraphs
    )
    assert "thesis deadline" in " ".join(moved_notice.paragraphs)
    removed_notice = _notices(line, ada, "line-removed")[0]
    said = " ".join(removed_notice.paragraphs)
    assert "mia, a manager of group physics, removed req-alpha from the line" in said
    assert "a duplicate" in said


def test_a_manager_of_another_group_is_answered_as_if_the_request_did_not_exist(line):
    _ada_client, ada = _login(line, "ada")
    other, _hal = _manager(line, "hal", "chemistry")
    line.pool(gpus="1")
    line.launch(ada)
    waiting = line.wait(ada, name="req-alpha")

    page = other.get("/lines/")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "req-alpha" not in text and "No request waits in line." in text
    token = csrf_from(text)
    for path, data in (
        (f"/lines/{waiting.id}/move", {"place": "1", "reason": "mine now"}),
        (f"/lines/{waiting.id}/remove", {"reason": "mine now"}),
    ):
        assert other.post(path, data={"csrf_token": token, **data}).status_code == 404
    assert line.status(waiting.id) == "WAITING"
    assert _notices(line, ada, "line-removed") == []

    # Someone who manages nothing is not shown the page at all.
    stranger, _sam = _login(line, "sam")
    assert stranger.get("/lines/").status_code == 403
    assert stranger.post(f"/lines/{waiting.id}/remove", data={"reason": "x"}).status_code in (
        400,
        404,
    )
    assert line.status(waiting.id) == "WAITING"


def test_a_manager_sees_no_controls_on_their_own_request(line):
    manager, mia = _manager(line, "mia", "physics")
    with line.app.app_context():
        db.session.get(User, mia).groups = ["physics"]
        db.session.commit()
    _bea_client, bea = _login(line, "bea")
    line.pool(gpus="1")
    line.launch(bea)
    own = line.wait(mia, name="req-own")
    theirs = line.wait(bea, name="req-theirs")
    page = manager.get("/lines/").get_data(as_text=True)
    assert f'action="/lines/{theirs.id}/move"' in page
    assert f'action="/lines/{own.id}/move"' not in page
    assert "Yours: leave the line from its page." in page
    token = csrf_from(page)
    answer = manager.post(
        f"/lines/{own.id}/move", data={"csrf_token": token, "place": "1", "reason": "me first"}
    )
    assert answer.status_code == 404


def test_the_command_line_lets_a_manager_act_on_their_group_only(line):
    _ada_client, ada = _login(line, "ada")
    _manager(line, "mia", "physics")
    _manager(line, "hal", "chemistry")
    line.pool(gpus="1")
    line.launch(ada)
    waiting = line.wait(ada, name="req-alpha")
    runner = line.app.test_cli_runner()
    refused = runner.invoke(
        args=["lines", "remove", str(waiting.id), "--reason", "x", "--as", "hal"]
    )
    assert refused.exit_code != 0 and "hal may not move or remove" in refused.output
    assert line.status(waiting.id) == "WAITING"
    done = runner.invoke(
        args=["lines", "remove", str(waiting.id), "--reason", "cleanup", "--as", "mia"]
    )
    assert done.exit_code == 0, done.output
    assert line.status(waiting.id) == "NOT_LAUNCHED"
    assert "mia, a manager of group physics" in " ".join(
        _notices(line, ada, "line-removed")[0].paragraphs
    )
