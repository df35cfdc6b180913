"""The line on the pages: the launch form offers "Wait in line" (a plain submit button, so it
works without scripts) when only held resources stand in the way, the waiting request shows its
place in My deployments and on its page, Leave the line, and the operators' Lines page."""

import re

from sqlalchemy import event, func, select

from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import People, csrf_from


def _login(line, username, roles=()):
    client = line.app.test_client()
    people = People(line.app, client)
    user_id = people.create(username, roles=roles)
    with line.app.app_context():
        from app.auth.models import User

        db.session.get(User, user_id).groups = ["physics"]
        db.session.commit()
    assert people.login(username).status_code == 302
    return client, user_id


def _form(client, extra=None):
    page = client.get("/catalogue/gpu-machine/").get_data(as_text=True)
    data = {
        "csrf_token": csrf_from(page),
        "num_gpus": "1",
        "gpu_model": "A100",
        "deployment_name": "training",
        "group": "physics",
        **(extra or {}),
    }
    return page, data


def test_the_form_offers_to_wait_in_line_and_the_request_shows_its_place(line):
    client, ada = _login(line, "ada")
    line.pool(gpus="1")
    held = line.launch(ada)
    page, data = _form(client)
    # The box says it does not fit; Launch is off and Wait in line is offered beside it.
    assert 'id="wait-offer"' in page and 'id="wait-offer" class="mt-2" hidden' not in page
    assert 'data-can-wait="yes"' in page
    refused = client.post("/catalogue/gpu-machine/", data=data)
    assert refused.status_code == 409
    assert "Wait in line" in refused.get_data(as_text=True)

    waited = client.post("/catalogue/gpu-machine/", data={**data, "wait_in_line": "1"})
    assert waited.status_code == 302
    detail_url = waited.headers["Location"]
    with line.app.app_context():
        waiting = db.session.scalar(select(Deployment).where(Deployment.status == "WAITING"))
        assert waiting.name == "training" and waiting.group_name == "physics"
    detail = client.get(detail_url).get_data(as_text=True)
    assert "Waiting in line" in detail
    assert "1st in line for GPUs in group physics" in detail
    listed = client.get("/deployments/").get_data(as_text=True)
    assert "1st in line for GPUs in group physics" in listed
    assert held

    left = client.post(
        f"/deployments/{waiting.id}/leave-line", data={"csrf_token": csrf_from(detail)}
    )
    assert left.status_code == 302
    with line.app.app_context():
        assert db.session.get(Deployment, waiting.id).status == "NOT_LAUNCHED"
        assert db.session.get(Deployment, waiting.id).deleted


def test_over_the_limit_by_itself_the_form_offers_no_line(line):
    client, ada = _login(line, "ada")
    line.pool(gpus="1")
    page, data = _form(client, {"num_gpus": "2"})
    assert 'id="wait-offer" class="mt-2" hidden' in page
    assert 'data-can-wait="no"' in page
    # Asking anyway (a crafted form) is refused with the reason, nothing recorded.
    answer = client.post("/catalogue/gpu-machine/", data={**data, "wait_in_line": "1"})
    assert answer.status_code == 409
    assert "cannot wait in line" in answer.get_data(as_text=True)
    with line.app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Deployment)) == 0


def test_the_italian_form_and_place_speak_italian(line):
    client, ada = _login(line, "ada")
    line.pool(gpus="1")
    line.launch(ada)
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    page, data = _form(client)
    assert "Mettiti in coda" in page
    waited = client.post("/catalogue/gpu-machine/", data={**data, "wait_in_line": "1"})
    detail = client.get(waited.headers["Location"]).get_data(as_text=True)
    assert "1° in coda per GPU nel gruppo physics" in detail
    assert "Esci dalla coda" in detail


def test_operators_see_every_line_and_move_or_remove_with_a_reason(line):
    _client, ada = _login(line, "ada")
    operator, _operator_id = _login(line, "olga", roles=("operator",))
    line.pool(gpus="1")
    line.launch(ada)
    first, second = line.wait(ada, name="req-alpha"), line.wait(ada, name="req-beta")
    page = operator.get("/lines/").get_data(as_text=True)
    assert "GPUs in group physics" in page
    assert page.index("req-alpha") < page.index("req-beta")
    token = csrf_from(page)
    no_reason = operator.post(f"/lines/{second.id}/move", data={"csrf_token": token, "place": "1"})
    assert no_reason.status_code == 302
    page = operator.get("/lines/").get_data(as_text=True)
    assert "Say why" in page and page.index("req-alpha") < page.index("req-beta")
    operator.post(
        f"/lines/{second.id}/move",
        data={"csrf_token": token, "place": "1", "reason": "deadline"},
    )
    page = operator.get("/lines/").get_data(as_text=True)
    assert page.index("req-beta") < page.index("req-alpha")
    operator.post(f"/lines/{first.id}/remove", data={"csrf_token": token, "reason": "duplicate"})
    assert line.status(first.id) == "NOT_LAUNCHED"
    assert re.search(r"removed from the line", operator.get("/lines/").get_data(as_text=True))


def test_changing_a_waiting_request_keeps_its_place(line):
    client, ada = _login(line, "ada")
    _other, bea = _login(line, "bea")
    line.pool(gpus="2")
    line.launch(ada, gpus=2)
    first = line.wait(ada, name="mine")
    behind = line.wait(bea, name="theirs")
    detail = client.get(f"/deployments/{first.id}").get_data(as_text=True)
    change = re.search(r'href="([^"]*replaces=\d+[^"]*)"', detail).group(1).replace("&amp;", "&")
    page = client.get(change).get_data(as_text=True)
    assert 'id="changing-request"' in page and f'name="replaces" value="{first.id}"' in page
    answer = client.post(
        "/catalogue/gpu-machine/",
        data={
            "csrf_token": csrf_from(page),
            "num_gpus": "2",
            "gpu_model": "A100",
            "deployment_name": "mine, bigger",
            "group": "physics",
            "replaces": str(first.id),
        },
    )
    assert answer.status_code == 302
    with line.app.app_context():
        from app.lines.models import LineEntry
        from app.lines.places import position

        changed = db.session.scalar(select(Deployment).where(Deployment.name == "mine, bigger"))
        assert changed.status == "WAITING"
        assert position(db.session.get(LineEntry, changed.id)) == 1
        assert position(db.session.get(LineEntry, behind.id)) == 2
        assert db.session.get(Deployment, first.id).status == "NOT_LAUNCHED"
        assert db.session.get(LineEntry, first.id) is None


def test_the_launch_box_reads_the_quotas_and_the_line_once(line, monkeypatch):
    """The box asks whether the launch fits, then whether it is kept for the line, then whether
    it could wait (the same two questions again): each is read from the database once."""
    from app.lines import reading

    client, ada = _login(line, "ada")
    line.pool(gpus="2")
    line.launch(ada)
    asked = {"limits": 0, "line": 0}

    def counted(name, original):
        def call(*args, **kwargs):
            asked[name] += 1
            return original(*args, **kwargs)

        return call

    def limits_read(_conn, _cursor, statement, *_args):
        # Whatever path reads them (the ORM's or the connection's), the limit sets are read
        # from their table.
        asked["limits"] += bool(re.search(r"\bFROM quota_limits\b", statement))

    monkeypatch.setattr(reading, "ordered_waiting", counted("line", reading.ordered_waiting))
    with line.app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", limits_read)
    try:
        page, data = _form(client)
    finally:
        event.remove(engine, "before_cursor_execute", limits_read)

    assert 'data-can-wait="no"' in page
    assert asked == {"limits": 1, "line": 1}  # the person's limits and the pool's together
