"""Idempotency-Key: the same key within a day gets the first answer and never acts twice, also
when the same request arrives at once in several processes."""

import json
from datetime import timedelta

from app.api import idempotency
from app.clock import use_clock, utcnow
from app.deployments.models import Deployment
from app.extensions import db
from tests.api import idempotency_worker
from tests.api.conftest import PARAMETERS
from tests.processes import race

PATH, JSON = "/api/v1/deployments", "application/json"
BODY = {"template": "test-notebook", "name": "course", "parameters": PARAMETERS}


def _count(app) -> int:
    with app.app_context():
        return db.session.query(Deployment).count()


def test_the_same_key_returns_the_first_answer_and_launches_once(callers, app):
    ada = callers("ada")
    first = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "k1"})
    again = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 201
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == first.headers["Location"]
    assert _count(app) == 1
    other = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "k2"})
    assert other.get_json()["id"] != first.get_json()["id"]


def test_keys_belong_to_their_owner(callers):
    ada, bob = callers("ada"), callers("bob")
    first = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "same"})
    second = bob.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "same"})
    assert second.status_code == 201
    assert second.get_json()["id"] != first.get_json()["id"]


def test_a_key_reused_for_another_request_is_422_and_does_nothing(callers, app):
    ada = callers("ada")
    ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "k"})
    other = ada.post(
        "/api/v1/deployments", json={**BODY, "name": "other"}, headers={"Idempotency-Key": "k"}
    )
    assert other.status_code == 422
    assert other.get_json()["type"].endswith("/problems/idempotency-key-reused")
    assert _count(app) == 1


def test_a_refusal_is_replayed_too_but_a_rate_limit_is_not(callers, app):
    ada = callers("ada")
    bad = {**BODY, "parameters": {"num_cpus": "many"}}
    first = ada.post("/api/v1/deployments", json=bad, headers={"Idempotency-Key": "bad"})
    again = ada.post("/api/v1/deployments", json=bad, headers={"Idempotency-Key": "bad"})
    assert first.status_code == again.status_code == 422
    assert again.get_json() == first.get_json()
    assert again.mimetype == "application/problem+json"
    app.config["LAUNCHES_PER_MINUTE"] = 1
    ada.launch(name="fills the minute")
    limited = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "r"})
    assert limited.status_code == 429
    app.config["LAUNCHES_PER_MINUTE"] = 0
    retried = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "r"})
    assert retried.status_code == 201


def test_a_key_is_free_again_after_a_day(callers, app):
    ada = callers("ada")
    first = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "daily"})
    later = utcnow() + timedelta(hours=25)
    with use_clock(lambda: later):
        ada.token = callers.token_for(ada.user_id)  # the first token is 30 days: still fine
        again = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "daily"})
    assert again.status_code == 201
    assert again.get_json()["id"] != first.get_json()["id"]


def test_a_bad_key_is_400(callers):
    ada = callers("ada")
    answer = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "x" * 300})
    assert answer.status_code == 400


def test_the_same_key_from_several_processes_at_once_launches_once(callers, app, tmp_path):
    ada = callers("ada")
    processes = 4
    outcomes = race(
        idempotency_worker.run,
        [(dict(app.config), str(tmp_path), ada.token, "race", BODY)] * processes,
        parties=processes,
        outcomes=processes,
    )
    launched = {ident for status, ident in outcomes if status == 201}
    waiting = [ident for status, ident in outcomes if status == 409]
    assert len(launched) == 1, outcomes
    assert all(ident.endswith("/problems/idempotency-key-in-use") for ident in waiting)
    assert _count(app) == 1
    replay = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "race"})
    assert replay.get_json()["id"] in launched


def test_an_identical_launch_still_being_confirmed_leaves_the_key_free(callers, app):
    from app.deployments.models import SUBMITTING

    ada = callers("ada")
    first = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "a"})
    with app.app_context():
        db.session.get(Deployment, first.get_json()["id"]).status = SUBMITTING
        db.session.commit()
    pending = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "b"})
    assert pending.status_code == 409
    assert pending.get_json()["type"].endswith("/problems/launch-pending")
    with app.app_context():
        db.session.get(Deployment, first.get_json()["id"]).status = "ready"
        db.session.commit()
    retried = ada.post("/api/v1/deployments", json=BODY, headers={"Idempotency-Key": "b"})
    assert retried.status_code == 201
    assert _count(app) == 2


def test_a_key_claimed_by_a_host_that_died_may_be_claimed_again_after_minutes(callers, app):
    ada = callers("ada")
    body = json.dumps(BODY).encode()
    with app.app_context():  # a host claimed the key, then died before answering
        idempotency.claim(ada.user_id, "died", idempotency.fingerprint("POST", PATH, body))
    sent = {"data": body, "headers": {"Idempotency-Key": "died", "Content-Type": JSON}}

    soon, claimed = ada.post(PATH, **sent), utcnow()
    with use_clock(lambda: claimed + timedelta(minutes=4)):
        still = ada.post(PATH, **sent)
    with use_clock(lambda: claimed + idempotency.ABANDONED_AFTER + timedelta(seconds=1)):
        retried = ada.post(PATH, **sent)
        replayed = ada.post(PATH, **sent)
        other = ada.post(PATH, data=json.dumps({**BODY, "name": "x"}), headers=sent["headers"])

    assert soon.status_code == still.status_code == 409
    assert soon.get_json()["type"].endswith("/problems/idempotency-key-in-use")
    assert retried.status_code == 201 and _count(app) == 1
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.get_json()["id"] == retried.get_json()["id"]
    assert other.status_code == 422
