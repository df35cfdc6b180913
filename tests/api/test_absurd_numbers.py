"""Absurd numbers and depths from outside are refused in words, never answered with a 500: ids
no database integer holds in every route's address, page numbers past any page, numbers in
forms and JSON bodies, and JSON nested 100,000 deep."""

import pytest
from flask import url_for
from werkzeug.routing import IntegerConverter

from app.bounds import JSON_MAX_DEPTH, LARGEST_ID
from tests.api.conftest import Callers, publish_templates
from tests.conftest import People

HUGE = 10**22  # 23 digits


class Portal:
    """An admin logged in on the pages, the same admin with an API token; CSRF off so that
    every form reaches its view."""

    def __init__(self, app):
        self.app = app
        self.api = Callers(app)("ada", admin=True)
        self.people = People(app, app.test_client())
        self.people.create("root", roles=("admin", "operator"))
        assert self.people.login("root").status_code == 302
        self.pages = self.people.client

    def client_for(self, path: str):
        return self.api if path.startswith("/api/") else self.pages

    def send(self, method: str, path: str, **kwargs):
        return getattr(self.client_for(path), method.lower())(path, **kwargs)


@pytest.fixture
def portal(make_app):
    app = make_app(WTF_CSRF_ENABLED=False, LAUNCHES_PER_MINUTE=0)
    publish_templates(app)
    return Portal(app)


def routes_with_ids(app, value: int):
    """(method, path) of every route with an ``<int:...>`` part, each such part ``value``."""
    for rule in app.url_map.iter_rules():
        converters = rule._converters
        if not any(isinstance(c, IntegerConverter) for c in converters.values()):
            continue
        values = {
            name: value if isinstance(c, IntegerConverter) else "test-notebook"
            for name, c in converters.items()
        }
        with app.test_request_context():
            path = url_for(rule.endpoint, **values)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, path


def assert_refused_in_words(answer, path: str) -> None:
    assert 400 <= answer.status_code < 500, (path, answer.status_code)
    if path.startswith("/api/"):
        assert answer.mimetype == "application/problem+json", path
        assert answer.get_json()["detail"].strip(), path
    else:
        assert "<h1" in answer.get_data(as_text=True), path


@pytest.mark.parametrize("value", [HUGE, 2**63, LARGEST_ID + 1])
def test_every_route_with_an_id_refuses_an_id_no_database_holds_as_not_found(portal, value):
    routes = list(routes_with_ids(portal.app, value))
    assert len(routes) > 30 and any(p.startswith("/api/") for _m, p in routes)
    for method, path in routes:
        answer = portal.send(method, path)
        assert_refused_in_words(answer, path)
        # Werkzeug answers 405 where another method's route has the same address.
        assert answer.status_code in (404, 405), (method, path, answer.status_code)


def test_the_largest_id_a_database_holds_still_reaches_the_view(portal):
    answer = portal.api.get(f"/api/v1/deployments/{LARGEST_ID}")

    assert answer.status_code == 404
    assert answer.get_json()["type"].endswith("/not-found")


NUMBERS = [str(HUGE), str(-HUGE), "1e400"]
QUERY_NAMES = ("page", "size", "per_page", "limit", "since", "months", "month", "days")


def test_every_list_answers_absurd_page_numbers_and_sizes_without_failing(portal):
    pages = [
        rule
        for rule in portal.app.url_map.iter_rules()
        if "GET" in rule.methods and not rule._converters
    ]
    failed = []
    for rule in pages:
        with portal.app.test_request_context():
            path = url_for(rule.endpoint)
        for name in QUERY_NAMES:
            for value in NUMBERS:
                answer = portal.send("GET", path, query_string={name: value})
                if answer.status_code >= 500:
                    failed.append((path, name, value, answer.status_code))
    assert failed == []


def test_a_page_number_past_any_page_shows_the_last_page(portal):
    portal.api.launch("only-one")

    answer = portal.api.get("/api/v1/deployments", query_string={"page": str(HUGE)})

    assert answer.status_code == 200
    assert [item["name"] for item in answer.get_json()["items"]] == ["only-one"]
    assert portal.pages.get("/quotas/", query_string={"page": str(HUGE)}).status_code == 200
    # The users' list answers a page past its end with "Nothing here", whatever its number.
    assert portal.pages.get("/admin/users/", query_string={"page": str(HUGE)}).status_code == 404


@pytest.mark.parametrize("depth", [100_000, JSON_MAX_DEPTH + 1])
def test_a_json_body_nested_too_deep_is_refused_in_words(portal, depth):
    body = '{"template": "test-notebook", "name": "deep", "parameters": ' + (
        "[" * depth + "]" * depth + "}"
    )

    answer = portal.api.post(
        "/api/v1/deployments", data=body, headers={"Content-Type": "application/json"}
    )

    assert answer.status_code == 400
    assert answer.get_json()["detail"] == (
        f"The JSON body nests lists and objects more than {JSON_MAX_DEPTH} levels deep; "
        "nothing was done."
    )
    assert portal.api.get("/api/v1/deployments").get_json()["items"] == []


def test_a_deep_json_body_is_refused_in_italian_too(portal):
    answer = portal.api.post(
        "/api/v1/deployments/1/lease",
        data="[" * 100_000,
        headers={"Content-Type": "application/json", "Accept-Language": "it"},
    )

    assert answer.status_code == 400
    assert "livelli" in answer.get_json()["detail"]


def test_a_deep_json_callback_is_refused_not_failed(portal):
    from app.deployments.models import Deployment
    from app.extensions import db

    deployment_id = portal.api.launch("called-back").get_json()["id"]
    with portal.app.app_context():
        secret = db.session.get(Deployment, deployment_id).reference_secret
    assert secret

    answer = portal.pages.post(
        f"/deployments/callback/{deployment_id}/{secret}",
        data="[" * 100_000,
        headers={"Content-Type": "application/json"},
    )

    assert answer.status_code == 400


def test_a_token_lifetime_of_a_trillion_days_is_refused_in_words(portal):
    answer = portal.pages.post(
        "/account/tokens",
        data={"name": "forever", "scopes": ["deployments:read"], "days": str(10**12)},
    )

    assert answer.status_code == 400
    assert "A token can live 365 days at most on this portal." in answer.get_data(as_text=True)


FORMS = [
    ("/account/tokens", {"name": "t", "scopes": ["deployments:read"], "days": str(HUGE)}),
    ("/catalogue/test-notebook/", {"name": "n", "num_cpus": str(HUGE), "lease_duration": "1d"}),
    ("/catalogue/test-notebook/", {"name": "n", "num_cpus": "2", "lease_duration": f"{HUGE}d"}),
    ("/admin/catalogue/test-notebook/publish", {"number": str(HUGE)}),
    ("/quotas/site", {"cores": str(HUGE), "memory": f"{HUGE} TB", "reason": "r"}),
    ("/quotas/group", {"group": "physics", "cores": str(HUGE), "reason": "r"}),
    ("/leases/", {"level": "site", "max_extends": str(HUGE), "cap": f"{HUGE}d", "reason": "r"}),
]


@pytest.mark.parametrize(("path", "data"), FORMS, ids=[f"{p} {sorted(d)}" for p, d in FORMS])
def test_absurd_numbers_in_forms_are_refused_in_words(portal, path, data):
    answer = portal.pages.post(path, data=data)

    assert answer.status_code < 500, answer.status_code


def test_absurd_numbers_in_api_bodies_and_extends_are_refused_in_words(portal):
    deployment = portal.api.launch("one").get_json()["id"]
    answers = {
        "launch": portal.api.launch("two", parameters={"num_cpus": HUGE}),
        "lease": portal.api.post(f"/api/v1/deployments/{deployment}/lease", json={"hours": HUGE}),
        "extend page": portal.pages.post(
            f"/deployments/{deployment}/extend",
            data={"override": "1", "by": f"{HUGE}d", "reason": "r"},
        ),
    }
    for name, answer in answers.items():
        assert 300 <= answer.status_code < 500, (name, answer.status_code)
        if answer.mimetype.endswith("json"):
            assert answer.get_json()["detail"], name


@pytest.mark.parametrize("number", ["1e400", "NaN", "-Infinity", "9" * 5000])
def test_numbers_json_cannot_hold_exactly_are_refused_in_words(portal, number):
    body = (
        '{"template": "test-notebook", "name": "n", "parameters": '
        f'{{"num_cpus": {number}, "jupyter_password": "s3cret-passw0rd"}}}}'
    )

    answer = portal.api.post(
        "/api/v1/deployments", data=body, headers={"Content-Type": "application/json"}
    )

    assert 400 <= answer.status_code < 500, answer.get_json()
    assert answer.get_json()["detail"]
    assert portal.api.get("/api/v1/deployments").get_json()["items"] == []
