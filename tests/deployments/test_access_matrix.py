"""One access rule for deployments: every route that takes a deployment, from the
application's own URL map, asked by every kind of person, through the pages and the API.

The rights below are written from the issue (what a viewer, a co-owner, a group's manager, an
operator and an admin may do), not read from the policy: the test is the policy's second
witness. A route that takes a deployment and has no row in ``ROUTES`` fails the suite, so a new
route cannot forget to ask the policy.
"""

from __future__ import annotations

import secrets as random
from datetime import timedelta

import pytest

from app.auth import access_tokens, managers
from app.auth.cli import create_local_user
from app.auth.models import User
from app.auth.operations import grant_role
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from tests.conftest import csrf_from

# What each kind of person may do to a deployment charged to group "physics" and owned by
# "owner" (who shared it with "co" as co-owner and with group "optics" as viewer).
ALLOWED = {
    "owner": {"view", "reveal", "extend", "delete", "relaunch", "share"},
    "co-owner": {"view", "reveal", "extend", "delete", "relaunch"},
    "viewer": {"view"},
    "manager": {"view", "extend", "delete", "steer"},
    "operator": {"extend-past-policy", "share", "steer"},
    "admin": {"view", "extend", "extend-past-policy", "delete", "relaunch", "share", "steer"},
    "stranger": set(),
}
ROLES = tuple(ALLOWED)
OPERATORS_PAGE = "operators' page"  # role_required("operator"): 403 for the others
BY_SECRET = "by its secret"  # the orchestrator's callback: no person, its own secret

# (endpoint, method) -> [(what it needs: one action or several, any of which will do; what
# the request carries)]. Bodies are form fields for pages and JSON for the API.
ROUTES: dict[tuple[str, str], list[tuple[tuple[str, ...], dict]]] = {
    ("deployments.detail", "GET"): [(("view",), {})],
    ("deployments.status", "GET"): [(("view",), {})],
    ("deployments.download_output", "GET"): [(("view",), {"name": "kube_config"})],
    ("deployments.download_output", "POST"): [(("reveal",), {"name": "node_creds"})],
    ("deployments.reveal", "POST"): [(("reveal",), {})],
    ("deployments.forget", "POST"): [(("reveal",), {})],
    ("deployments.log", "GET"): [(("view",), {})],
    ("deployments.resources", "GET"): [(("view",), {})],
    ("deployments.template", "GET"): [(("view",), {})],
    ("deployments.confirm_delete", "GET"): [(("delete",), {})],
    ("deployments.remove", "POST"): [(("delete",), {})],
    ("deployments.reset", "POST"): [(("delete",), {})],
    ("lines.leave", "POST"): [(("delete",), {})],
    ("launch.relaunch", "POST"): [(("relaunch",), {"form": {"name": "again"}})],
    # Nobody's while its owner is active (here): tests/api/test_take_over_api.py asks every
    # kind of person again once the owner's account is disabled.
    ("launch.take_over", "POST"): [(("take-over",), {})],
    ("leases.extend", "POST"): [
        (("extend",), {}),
        (("extend-past-policy",), {"form": {"override": "1", "by": "1h", "reason": "test"}}),
    ],
    ("sharing.share", "POST"): [
        (("share",), {"form": {"kind": "user", "name": "target", "role": "viewer"}})
    ],
    ("sharing.unshare", "POST"): [(("share",), {"form": {"kind": "user", "name": "co"}})],
    ("lines.move", "POST"): [(("steer",), {"form": {"place": "1", "reason": "x"}})],
    ("lines.remove", "POST"): [(("steer",), {"form": {"reason": "x"}})],
    ("deployment_callbacks.receive", "POST"): [((BY_SECRET,), {"secret": "wrong"})],
    ("api.get_deployment", "GET"): [(("view",), {})],
    ("api.list_shares", "GET"): [(("view",), {})],
    ("api.relaunch", "POST"): [(("relaunch",), {"json": {"name": "again"}})],
    ("api.delete_deployment", "DELETE"): [(("delete",), {})],
    ("api.take_over", "POST"): [(("take-over",), {})],
    ("api.reveal_secrets", "POST"): [(("reveal",), {})],
    ("api.extend_lease", "POST"): [
        (("extend",), {"json": {}}),
        # Past the policy is for operators, whoever asks and whichever deployment: others are
        # answered 403 before any deployment is read, which tells them nothing of it.
        (
            ("extend-past-policy",),
            {"json": {"past_policy": True, "hours": 1, "reason": "test"}, "refused": 403},
        ),
    ],
    ("api.share_with_user", "PUT"): [
        (("share",), {"username": "target", "json": {"role": "viewer"}})
    ],
    ("api.share_with_group", "PUT"): [
        (("share",), {"group": "physics", "json": {"role": "viewer"}})
    ],
    ("api.unshare_user", "DELETE"): [(("share",), {"username": "co"})],
    ("api.unshare_group", "DELETE"): [(("share",), {"group": "optics"})],
}


def deployment_routes(app):
    """(endpoint, method, rule) of every route of ``app`` that takes a deployment."""
    for rule in app.url_map.iter_rules():
        if "deployment_id" in rule.arguments:
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield rule.endpoint, method, rule


def test_every_route_that_takes_a_deployment_has_a_rule_here(app):
    found = {(endpoint, method) for endpoint, method, _rule in deployment_routes(app)}
    assert found - set(ROUTES) == set(), "a route takes a deployment without a rule"
    assert set(ROUTES) - found == set(), "a rule here names a route that is gone"


class World:
    """The people, a deployment factory, and a browser and a token for each person."""

    def __init__(self, app, make_deployment, people_for):
        self.app, self.make_deployment = app, make_deployment
        self.ids: dict[str, int] = {}
        self.clients, self.tokens, self.csrf = {}, {}, {}
        with app.app_context():
            for username, groups, role in (
                ("owner", ["physics", "optics"], None),
                ("co", ["chemistry"], None),
                ("viewer", ["optics"], None),
                ("manager", ["biology"], None),
                ("operator", [], "operator"),
                ("admin", [], "admin"),
                ("stranger", ["chemistry"], None),
                ("target", ["physics"], None),
            ):
                user = create_local_user(username, "correct horse battery")
                user.groups = groups
                if role:
                    grant_role(user, role, granted_by="test")
                db.session.commit()
                self.ids[username] = user.id
                _record, self.tokens[username] = access_tokens.create(
                    user, "test", list(access_tokens.SCOPES), timedelta(days=1)
                )
            managers.name_manager("physics", db.session.get(User, self.ids["manager"]), "test")
        for username in self.ids:
            client = app.test_client()
            people_for(app, client).login(username)
            self.clients[username] = client
            self.csrf[username] = csrf_from(client.get("/deployments/").get_data(as_text=True))

    def deployment(self) -> int:
        deployment_id = self.make_deployment(
            self.ids["owner"],
            group_name="physics",
            outputs={"kube_config": "apiVersion: v1"},
            secret_outputs={"node_creds": {"user": "u", "password": "pw"}},
        )
        with self.app.app_context():
            owner = db.session.get(User, self.ids["owner"])
            deployment = db.session.get(Deployment, deployment_id)
            sharing.share(owner, deployment, "user", "co", "co-owner")
            sharing.share(owner, deployment, "group", "optics", "viewer")
        return deployment_id

    def call(self, who: str, endpoint: str, method: str, rule, deployment_id: int, given: dict):
        values = {"deployment_id": deployment_id}
        for name in rule.arguments - {"deployment_id"}:
            values[name] = given.get(name, "x")
        path = rule.build(values)[1]
        if endpoint.startswith("api."):
            headers = {"Authorization": f"Bearer {self.tokens[who]}"}
            client = self.app.test_client()
            return client.open(path, method=method, json=given.get("json"), headers=headers)
        client = self.clients[who]
        data = {"csrf_token": self.csrf[who], **given.get("form", {})} if method == "POST" else None
        return client.open(path, method=method, data=data)


ROLE_OF = {"co-owner": "co", "viewer": "viewer"}


@pytest.mark.parametrize("role", ROLES)
def test_each_route_answers_each_kind_of_person_by_the_one_rule(
    app, make_deployment, people_for, role
):
    world = World(app, make_deployment, people_for)
    who = ROLE_OF.get(role, role)
    untouched = world.deployment()  # what every refused request must leave as it was
    wrong = []
    for endpoint, method, rule in deployment_routes(app):
        for needs, given in ROUTES[(endpoint, method)]:
            if needs == (BY_SECRET,):
                answer = world.call(who, endpoint, method, rule, untouched, given)
                if answer.status_code != 404:
                    wrong.append((endpoint, method, needs, answer.status_code))
                continue
            if needs == (OPERATORS_PAGE,):
                allowed = role in ("operator", "admin")
            else:
                allowed = bool(set(needs) & ALLOWED[role])
            target = world.deployment() if allowed else untouched
            answer = world.call(who, endpoint, method, rule, target, given)
            refused = 403 if needs == (OPERATORS_PAGE,) else given.get("refused", 404)
            # Allowed: past the rule (what comes after, e.g. a relaunch refused for a password
            # that was typed, is not this test's), and nothing crashed.
            if allowed and answer.status_code in (403, 404, 500):
                said = answer.get_data(as_text=True)[:300]
                wrong.append((endpoint, method, needs, "allowed", answer.status_code, said))
            if not allowed and answer.status_code != refused:
                wrong.append((endpoint, method, needs, "refused", answer.status_code))
    assert wrong == [], wrong
    with app.app_context():
        kept = db.session.get(Deployment, untouched)
        assert not kept.deleted and kept.status == "ready"
        assert sorted((s.kind, s.name, s.role) for s in sharing.shares_of(kept)) == [
            ("group", "optics", "viewer"),
            ("user", "co", "co-owner"),
        ]
        assert [e.kind for e in kept.events] == ["shared", "shared"]


def test_two_tokens_try_every_cross_user_path_and_see_nothing_of_each_other(app, make_deployment):
    """Ada and Bob each own a deployment; each token, on the other's, is answered 404 on every
    API route that takes a deployment, and nothing of the other's changes."""
    tokens, mine = {}, {}
    with app.app_context():
        for name in ("ada", "bob"):
            user = create_local_user(name, "correct horse battery")
            user.groups = ["physics"]
            db.session.commit()
            _record, tokens[name] = access_tokens.create(
                user, "t", list(access_tokens.SCOPES), timedelta(days=1)
            )
            mine[name] = user.id
    deployments = {
        name: make_deployment(user_id, group_name="physics", secrets={"p": random.token_hex(4)})
        for name, user_id in mine.items()
    }
    client = app.test_client()
    for caller, other in (("ada", "bob"), ("bob", "ada")):
        headers = {"Authorization": f"Bearer {tokens[caller]}"}
        for endpoint, method, rule in deployment_routes(app):
            if not endpoint.startswith("api."):
                continue
            for _needs, given in ROUTES[(endpoint, method)]:
                values = {"deployment_id": deployments[other]}
                for name in rule.arguments - {"deployment_id"}:
                    values[name] = {"username": caller, "group": "physics"}[name]
                path = rule.build(values)[1]
                answer = client.open(path, method=method, json=given.get("json"), headers=headers)
                assert answer.status_code == given.get("refused", 404), (caller, endpoint, method)
        listed = client.get("/api/v1/deployments?shared=true", headers=headers).get_json()
        assert listed["items"] == []
        own = client.get("/api/v1/deployments", headers=headers).get_json()["items"]
        assert [(i["id"], i["owner"], i["access"]) for i in own] == [
            (deployments[caller], caller, "owner")
        ]
    with app.app_context():
        for deployment_id in deployments.values():
            kept = db.session.get(Deployment, deployment_id)
            assert not kept.deleted and kept.events == [] and sharing.shares_of(kept) == []
