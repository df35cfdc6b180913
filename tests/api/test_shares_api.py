"""A deployment's shares through the API: list, share (201 new, 200 changed), stop sharing
(204); scopes; only the owner changes them; ``?shared=true``; ``owner`` and ``access`` on every
deployment; and, against two portal processes, concurrent shares and revokes each answered by
the state they made."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import requests

from app import create_app
from app.auth import access_tokens
from app.auth.cli import create_local_user
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from tests.api.live import ROOT
from tests.conftest import TEST_CONFIG

READ_ONLY = ("deployments:read",)
# rcp of this checkout (the virtualenv's script may be installed from another one).
HERE = {"PYTHONPATH": str(ROOT)}


def launched(caller) -> int:
    answer = caller.launch(name="shared")
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"]


def test_the_owner_shares_changes_and_revokes_and_the_other_token_follows_at_once(callers):
    ada, bob = callers("ada"), callers("bob", groups=("chemistry",))
    deployment_id = launched(ada)
    shares = f"/api/v1/deployments/{deployment_id}/shares"
    assert bob.get(f"/api/v1/deployments/{deployment_id}").status_code == 404

    made = ada.client.put(f"{shares}/users/bob", json={"role": "viewer"}, headers=ada.headers())
    assert made.status_code == 201
    assert made.get_json() == {"items": [{"kind": "user", "name": "bob", "role": "viewer"}]}
    again = ada.client.put(f"{shares}/users/bob", json={"role": "co-owner"}, headers=ada.headers())
    assert again.status_code == 200
    group = ada.client.put(
        f"{shares}/groups/physics", json={"role": "viewer"}, headers=ada.headers()
    )
    assert group.status_code == 201
    assert ada.get(shares).get_json()["items"] == [
        {"kind": "user", "name": "bob", "role": "co-owner"},
        {"kind": "group", "name": "physics", "role": "viewer"},
    ]

    seen = bob.get(f"/api/v1/deployments/{deployment_id}").get_json()
    assert (seen["owner"], seen["access"]) == ("ada", "co-owner")
    listed = bob.get("/api/v1/deployments?shared=true").get_json()["items"]
    assert [(i["id"], i["owner"], i["access"]) for i in listed] == [
        (deployment_id, "ada", "co-owner")
    ]
    assert bob.get("/api/v1/deployments").get_json()["items"] == []
    own = ada.get("/api/v1/deployments").get_json()["items"]
    assert [(i["owner"], i["access"]) for i in own] == [("ada", "owner")]

    # A co-owner may not share it further, nor stop others' shares.
    resharing = bob.client.put(
        f"{shares}/users/ada", json={"role": "viewer"}, headers=bob.headers()
    )
    assert resharing.status_code == 404
    assert bob.delete(f"{shares}/groups/physics").status_code == 404

    assert ada.delete(f"{shares}/users/bob").status_code == 204
    assert bob.get(f"/api/v1/deployments/{deployment_id}").status_code == 404
    assert bob.get("/api/v1/deployments?shared=true").get_json()["items"] == []
    assert ada.delete(f"{shares}/users/bob").status_code == 204


def test_scopes_and_refusals_in_words(callers):
    ada = callers("ada")
    reader = callers("rita", scopes=READ_ONLY)
    callers("bob", groups=("chemistry",))
    deployment_id = launched(ada)
    shares = f"/api/v1/deployments/{deployment_id}/shares"
    read_only = callers.token_for(ada.user_id, READ_ONLY)
    headers = {"Authorization": f"Bearer {read_only}"}
    assert ada.client.get(shares, headers=headers).status_code == 200
    refused = ada.client.put(f"{shares}/users/bob", json={"role": "viewer"}, headers=headers)
    assert (
        refused.status_code == 403 and refused.get_json()["required_scope"] == "deployments:write"
    )
    assert reader.get(shares).status_code == 404

    def put(path, body):
        return ada.client.put(f"{shares}/{path}", json=body, headers=ada.headers())

    assert put("users/bob", {"role": "owner"}).status_code == 400
    nobody = put("users/nobody", {"role": "viewer"})
    assert nobody.status_code == 400 and "knows nobody named nobody" in nobody.get_json()["detail"]
    outside = put("groups/chemistry", {"role": "viewer"})
    assert outside.status_code == 400 and "chemistry is not one" in outside.get_json()["detail"]
    assert put("users/ada", {"role": "viewer"}).status_code == 400


def test_the_openapi_document_names_the_shares_and_their_scopes(callers):
    document = callers("ada").get("/api/v1/openapi.json").get_json()
    shares = document["paths"]["/deployments/{deployment_id}/shares"]["get"]
    assert shares["security"] == [{"token": ["deployments:read"]}]
    user = document["paths"]["/deployments/{deployment_id}/shares/users/{username}"]
    assert user["put"]["security"] == [{"token": ["deployments:write"]}]
    assert user["delete"]["security"] == [{"token": ["deployments:write"]}]
    assert "/deployments/{deployment_id}/shares/groups/{group}" in document["paths"]


def _people(database_url: str, instance: str) -> dict[str, str]:
    """Tokens for bob and for ada's second token, made straight in the shared database."""
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url}, instance)
    with app.app_context():
        bob = create_local_user("bob", "correct horse battery")
        scopes = list(access_tokens.SCOPES)
        _record, token = access_tokens.create(bob, "t", scopes, timedelta(days=1))
        # A session still holding its connection would leave it to the garbage collector.
        db.session.remove()
        db.engine.dispose()
    return {"bob": token}


def test_concurrent_shares_and_revokes_on_two_processes_are_each_answered_by_their_state(
    live_portal, tmp_path
):
    """20 requests at once, on the two processes of gunicorn: each PUT's answer is the state
    its change made, the timeline is one serial history of them, and the last state is what
    that history leaves."""
    token = live_portal.token_from_account_page(
        ("deployments:read", "deployments:write", "templates:read")
    )
    _people(live_portal.env["PORTAL_SQLALCHEMY_DATABASE_URI"], str(tmp_path / "other"))
    api = live_portal.url + "/api/v1"
    headers = {"Authorization": f"Bearer {token}"}
    body = {
        "template": "test-notebook",
        "name": "race",
        "parameters": {"num_cpus": 2, "jupyter_password": "s3cret-passw0rd"},
    }
    made = requests.post(f"{api}/deployments", json=body, headers=headers, timeout=60)
    assert made.status_code == 201, made.text
    path = f"{api}/deployments/{made.json()['id']}/shares/users/bob"

    def one(index: int):
        if index % 3 == 2:
            answer = requests.delete(path, headers=headers, timeout=60)
            return "delete", None, answer.status_code, None
        role = ("viewer", "co-owner")[index % 2]
        answer = requests.put(path, json={"role": role}, headers=headers, timeout=60)
        return "put", role, answer.status_code, answer.json()["items"]

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(one, range(20)))

    for verb, role, status, items in answers:
        if verb == "delete":
            assert status == 204
        else:
            assert status in (200, 201)
            # The answer is the state this PUT made: bob, with the role it asked for.
            assert items == [{"kind": "user", "name": "bob", "role": role}]
    app = create_app(
        {
            **TEST_CONFIG,
            "SQLALCHEMY_DATABASE_URI": live_portal.env["PORTAL_SQLALCHEMY_DATABASE_URI"],
        },
        str(tmp_path / "check"),
    )
    with app.app_context():
        deployment = db.session.get(Deployment, made.json()["id"])
        events = list(
            db.session.scalars(
                db.select(DeploymentEvent)
                .where(
                    DeploymentEvent.deployment_id == deployment.id,
                    DeploymentEvent.kind.in_(("shared", "unshared")),
                )
                .order_by(DeploymentEvent.id)
            )
        )
        role = None  # replay: each entry starts from the state the one before left
        for event in events:
            assert event.details["previous_role"] == role
            role = event.details["role"] if event.kind == "shared" else None
        from app.deployments.sharing import shares_of

        final = [(s.name, s.role) for s in shares_of(deployment)]
        # A session still holding its connection would leave it to the garbage collector.
        db.session.remove()
        db.engine.dispose()
    assert final == ([("bob", role)] if role else [])
    created = sum(1 for verb, _r, status, _i in answers if verb == "put" and status == 201)
    assert created == sum(
        1 for e in events if e.kind == "shared" and e.details["previous_role"] is None
    )


def test_rcp_shares_lists_what_is_shared_and_unshares(live_portal, tmp_path):
    """rcp share, unshare and list --shared, as run from this checkout."""
    scopes = ("deployments:read", "deployments:write", "templates:read")
    token = live_portal.token_from_account_page(scopes)
    bob = _people(live_portal.env["PORTAL_SQLALCHEMY_DATABASE_URI"], str(tmp_path / "p"))["bob"]
    body = {
        "template": "test-notebook",
        "name": "for-bob",
        "parameters": {"num_cpus": 2, "jupyter_password": "s3cret-passw0rd"},
    }
    made = requests.post(
        f"{live_portal.url}/api/v1/deployments",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    deployment_id = str(made.json()["id"])
    code, shared, err = live_portal.rcp(
        "share", deployment_id, "--user", "bob", "--role", "co-owner", token=token, env=HERE
    )
    assert code == 0, err
    assert shared.split() == ["KIND", "NAME", "ROLE", "user", "bob", "co-owner"]
    code, listed, _err = live_portal.rcp("list", "--shared", "--json", token=bob, env=HERE)
    assert code == 0
    assert [(i["name"], i["owner"], i["access"]) for i in listed["items"]] == [
        ("for-bob", "ada", "co-owner")
    ]
    code, text, _err = live_portal.rcp("list", "--shared", token=bob, env=HERE)
    assert "OWNER" in text and "ada" in text and "co-owner" in text
    # A co-owner may not share further: answered as a deployment not theirs (exit 4).
    code, _out, _err = live_portal.rcp("share", deployment_id, "--user", "ada", token=bob, env=HERE)
    assert code == 4
    code, left, err = live_portal.rcp(
        "unshare", deployment_id, "--user", "bob", token=token, env=HERE
    )
    assert code == 0 and "Not shared with anyone." in left, err
    code, _out, _err = live_portal.rcp("show", deployment_id, token=bob, env=HERE)
    assert code == 4
    code, _out, err = live_portal.rcp(
        "share", deployment_id, token=token, env=HERE, check_json=False
    )
    assert code == 0 and "Not shared with anyone." in _out
    code, _out, err = live_portal.rcp(
        "share", deployment_id, "--user", "x", "--group", "y", token=token, env=HERE
    )
    assert code == 2 and "Name one person" in err
