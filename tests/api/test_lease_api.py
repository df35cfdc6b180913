"""Leases through the API: each deployment carries its lease (the page's figures and refusal),
and POST /deployments/<id>/lease extends it through the page's operation, with its errors."""

from datetime import UTC, datetime, timedelta

import pytest

from app.clock import use_clock
from app.extensions import db
from app.leases.editing import parse_field, set_policy
from app.leases.expiry import expire_once
from app.sync.passes import sync_once
from tests.leases.conftest import MovableClock

PROBLEM = "application/problem+json"
ISO = "%Y-%m-%dT%H:%M:%SZ"


@pytest.fixture
def clock():
    moved = MovableClock()
    with use_clock(moved):
        yield moved


def _policy(app, **texts):
    with app.app_context():
        changes = {key: parse_field(key, text) for key, text in texts.items()}
        set_policy(None, "test-notebook", None, changes, "course")


def _ready(app, caller, clock) -> dict:
    """Launch and let the sync worker see it ready (the lease's clock starts then)."""
    answer = caller.launch(name="leased")
    assert answer.status_code == 201, answer.get_json()
    deployment_id = answer.get_json()["id"]
    for _ in range(5):
        clock.move(minutes=1)
        with app.app_context():
            sync_once()
        body = caller.get(f"/api/v1/deployments/{deployment_id}").get_json()
        if body["status"] == "CREATE_COMPLETE":
            return body
    raise AssertionError(f"still {body['status']}")


def _at(text: str) -> datetime:
    return datetime.strptime(text, ISO).replace(tzinfo=UTC)


def _kind(answer) -> str:
    assert answer.mimetype == PROBLEM, answer.get_data(as_text=True)
    return answer.get_json()["type"].rsplit("/", 1)[-1]


def test_without_a_policy_the_lease_is_none_and_an_extend_is_refused(app, callers, clock):
    ada = callers("ada")
    deployment = _ready(app, ada, clock)
    lease = deployment["lease"]
    assert lease["state"] == "none" and lease["ends_at"] is None
    assert lease["can_extend"] is False
    assert lease["extend_refusal"] == "this deployment has no running lease"
    listed = ada.get("/api/v1/deployments").get_json()["items"]
    assert listed[0]["lease"]["state"] == "none"

    refused = ada.post(f"/api/v1/deployments/{deployment['id']}/lease")
    assert refused.status_code == 409 and _kind(refused) == "extend-refused"
    assert "no running lease" in refused.get_json()["detail"]


def test_the_lease_shows_in_the_deployment_and_the_list_and_extends_within_the_policy(
    app, callers, clock
):
    _policy(app, default="3h", extend_step="1h", max_extends="1", cap="5h", warn="1h")
    ada = callers("ada")
    deployment = _ready(app, ada, clock)
    lease = deployment["lease"]
    assert lease["state"] == "running" and lease["duration_minutes"] == 180
    ends = _at(lease["ends_at"])
    assert timedelta(hours=2, minutes=58) < ends - clock() <= timedelta(hours=3)
    assert lease["can_extend"] is True and lease["extend_refusal"] is None
    assert (lease["extends_used"], lease["extends_left"], lease["cap_minutes"]) == (0, 1, 300)
    assert _at(lease["cap_ends_at"]) - ends == timedelta(hours=2)
    [listed] = ada.get("/api/v1/deployments").get_json()["items"]
    assert listed["lease"] == lease

    answer = ada.post(f"/api/v1/deployments/{deployment['id']}/lease")
    assert answer.status_code == 200, answer.get_json()
    extended = answer.get_json()
    assert _at(extended["lease"]["ends_at"]) - ends == timedelta(hours=1)
    assert extended["lease"]["extends_left"] == 0 and extended["lease"]["can_extend"] is False
    assert extended["lease"]["extend_refusal"] == "no extends left"
    [event] = [e for e in extended["timeline"] if e["kind"] == "lease-extended"]
    assert event["actor"] == "ada" and event["source"] == "user"

    again = ada.post(f"/api/v1/deployments/{deployment['id']}/lease", json={})
    assert again.status_code == 409 and _kind(again) == "extend-refused"
    assert again.get_json()["detail"] == "This lease cannot be extended now: no extends left."


def test_the_state_follows_the_warning_and_the_grace_period(app, callers, clock):
    _policy(app, default="3h", warn="1h", grace="30m", extend_step="1h")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)["id"]

    def lease():
        return ada.get(f"/api/v1/deployments/{deployment_id}").get_json()["lease"]

    clock.move(hours=2, minutes=5)
    assert lease()["state"] == "warned"
    clock.move(hours=1)
    with app.app_context():
        assert expire_once().expired == 1
    in_grace = lease()
    assert in_grace["state"] == "grace" and in_grace["delete_at"] is not None
    assert in_grace["can_extend"] is True  # as on the page: grace can still be extended
    clock.move(minutes=31)
    with app.app_context():
        expire_once()
    assert lease()["state"] == "expired"


def test_extends_open_near_the_end_and_the_refusal_says_so(app, callers, clock):
    _policy(app, default="3h", extend_step="1h", extend_window="30m")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)["id"]
    refused = ada.post(f"/api/v1/deployments/{deployment_id}/lease")
    assert refused.status_code == 409 and _kind(refused) == "extend-refused"
    assert "extends open 30 minutes before the end" in refused.get_json()["detail"]
    clock.move(hours=2, minutes=40)
    assert ada.post(f"/api/v1/deployments/{deployment_id}/lease").status_code == 200


def test_hours_must_name_the_step_and_bad_bodies_change_nothing(app, callers, clock):
    _policy(app, default="3h", extend_step="2h")
    ada = callers("ada")
    deployment = _ready(app, ada, clock)
    path = f"/api/v1/deployments/{deployment['id']}/lease"

    wrong = ada.post(path, json={"hours": 5})
    assert wrong.status_code == 409 and _kind(wrong) == "extend-refused"
    assert "adds 2 hours" in wrong.get_json()["detail"]
    for body in ({"hours": 0}, {"hours": "many"}, {"days": 1}, ["hours"]):
        bad = ada.post(path, json=body)
        assert bad.status_code == 400 and _kind(bad) == "bad-request", body
    unchanged = ada.get(f"/api/v1/deployments/{deployment['id']}").get_json()["lease"]
    assert unchanged == deployment["lease"]

    right = ada.post(path, json={"hours": 2})
    assert right.status_code == 200
    assert right.get_json()["lease"]["extends_used"] == 1


def test_scope_ownership_and_the_operators_override(app, callers, clock):
    _policy(app, default="3h", extend_step="1h", max_extends="0")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)["id"]
    path = f"/api/v1/deployments/{deployment_id}/lease"

    reader = callers("reader-ada", scopes=("deployments:read",))
    answer = reader.post(path)
    assert answer.status_code == 403 and _kind(answer) == "missing-scope"
    assert ada.client.post(path).status_code == 401  # no token
    bob = callers("bob")
    assert bob.post(path).status_code == 404
    own = ada.post(path, json={"past_policy": True, "hours": 4, "reason": "demo"})
    assert own.status_code == 403 and _kind(own) == "forbidden"

    admin = callers("root", admin=True)
    no_reason = admin.post(path, json={"past_policy": True, "hours": 4})
    assert no_reason.status_code == 400 and "Say why" in no_reason.get_json()["detail"]
    past = admin.post(path, json={"past_policy": True, "hours": 4, "reason": "thesis deadline"})
    assert past.status_code == 200, past.get_json()
    [event] = [e for e in past.get_json()["timeline"] if e["kind"] == "lease-extended"]
    assert event["source"] == "admin" and event["actor"] == "root"
    with app.app_context():
        from app.notifications.models import Notification

        told = db.session.scalars(db.select(Notification.kind)).all()
    assert "lease-extended" in told  # the owner is told


def test_an_idempotency_key_extends_once(app, callers, clock):
    _policy(app, default="3h", extend_step="1h", max_extends="3")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)["id"]
    path = f"/api/v1/deployments/{deployment_id}/lease"
    headers = {"Idempotency-Key": "extend-once"}

    first = ada.post(path, json={}, headers=headers)
    second = ada.post(path, json={}, headers=headers)
    assert first.status_code == second.status_code == 200
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.get_json()["lease"] == first.get_json()["lease"]
    now = ada.get(f"/api/v1/deployments/{deployment_id}").get_json()["lease"]
    assert now["extends_used"] == 1
    other = ada.post(path, json={"hours": 1}, headers=headers)
    assert other.status_code == 422 and _kind(other) == "idempotency-key-reused"


def test_an_operator_extending_past_the_policy_is_answered_only_what_operators_may_see(
    app, callers, clock
):
    from app.auth.models import User
    from app.auth.operations import grant_role

    _policy(app, default="3h", extend_step="1h", max_extends="0")
    ada = callers("ada")
    deployment_id = _ready(app, ada, clock)["id"]
    operator = callers("olga")
    with app.app_context():
        grant_role(db.session.get(User, operator.user_id), "operator", granted_by="test")
        db.session.commit()
    path = f"/api/v1/deployments/{deployment_id}/lease"

    answer = operator.post(path, json={"past_policy": True, "hours": 4, "reason": "deadline"})

    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert set(body) == {"id", "name", "status", "owner", "lease"}
    assert (body["id"], body["name"], body["owner"]) == (deployment_id, "leased", "ada")
    assert body["lease"]["extends_used"] == 1
    assert operator.get(f"/api/v1/deployments/{deployment_id}").status_code == 404
    # The owner still reads the whole deployment, the operator's extend in its timeline.
    owner_view = ada.get(f"/api/v1/deployments/{deployment_id}").get_json()
    assert "parameters" in owner_view and "timeline" in owner_view
