"""Absurd numbers and depths from outside are refused in words, never answered with a 500: ids
no database integer holds in every route's address, page numbers past any page, numbers in
forms and JSON bodies, and JSON nested 100,000 deep."""

import inspect
import re
from pathlib import Path

import pytest
from flask import url_for
from flask_wtf import FlaskForm
from werkzeug.routing import IntegerConverter
from wtforms.fields.core import UnboundField

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
    ("/catalogue/test-notebook/", {"name": "n", "num_cpus": "2", "replaces": "9" * 23}),
    ("/catalogue/test-notebook/", {"name": "n", "replaces": str(HUGE), "wait_in_line": "1"}),
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


READS = re.compile(r"\b(?:args|form|values)\.get\(\s*\"([a-z_]+)\"")
# Enough for the launch form to pass, so that what it reads only after validating is reached.
VALID_LAUNCH = {
    "num_cpus": "2",
    "jupyter_password": "s3cret-passw0rd",
    "deployment_name": "absurd numbers",
    "reason": "checking",
}


def names_read_beside(view) -> set[str]:
    """The query and form fields read by name in the package of ``view``'s module."""
    folder = Path(inspect.getfile(inspect.unwrap(view))).parent
    return {name for source in folder.rglob("*.py") for name in READS.findall(source.read_text())}


def form_field_names() -> set[str]:
    """The fields of every form class the portal has built so far."""
    names, forms, seen = set(), [FlaskForm], set()
    while forms:
        form = forms.pop()
        seen.add(form)
        names |= {name for name, value in vars(form).items() if isinstance(value, UnboundField)}
        forms += [sub for sub in form.__subclasses__() if sub not in seen]
    return names - set(VALID_LAUNCH) - {"csrf_token"}


def every_route(app, ids: dict[str, int]):
    """(method, path, view) of every route, its ids those of records that exist."""
    strings = {"slug": "test-notebook"}
    for rule in app.url_map.iter_rules():
        values = {
            name: ids.get(name, 1) if isinstance(c, IntegerConverter) else strings.get(name, "x")
            for name, c in rule._converters.items()
        }
        with app.test_request_context():
            path = url_for(rule.endpoint, **values)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, path, app.view_functions[rule.endpoint]


def test_no_route_fails_on_absurd_numbers_in_any_query_or_form_field_it_reads(portal):
    deployment = portal.api.launch("present").get_json()["id"]
    portal.pages.get("/catalogue/test-notebook/")  # builds the template's form class
    fields = form_field_names()
    assert {"number", "days", "a", "b"} <= fields
    failed, asked = [], 0
    for method, path, view in every_route(portal.app, {"deployment_id": deployment}):
        # Each name read directly alone (one may hide another: "defaults" before
        # "from_deployment"), then every form field at once (a form reports all its errors).
        tries = [{name: str(HUGE)} for name in sorted(names_read_beside(view) | set(QUERY_NAMES))]
        tries.append({name: str(-HUGE) for name in fields})
        for values in tries:
            if method == "GET":
                answer = portal.send(method, path, query_string=values)
            else:
                answer = portal.send(method, path, query_string=values, data=VALID_LAUNCH | values)
            asked += 1
            if answer.status_code >= 500:
                failed.append((method, path, sorted(values)[:3], answer.status_code))
    assert asked > 500
    assert failed == []


def test_the_launch_form_refuses_an_absurd_request_to_replace_in_words(portal):
    page = portal.pages.get("/catalogue/test-notebook/", query_string={"from_deployment": "9" * 23})
    answer = portal.pages.post(
        "/catalogue/test-notebook/", data=VALID_LAUNCH | {"replaces": "99999999999999999999999"}
    )

    assert page.status_code == 200
    assert 200 <= answer.status_code < 500, answer.status_code


def test_whole_numbers_from_requests_are_read_through_the_bounds_alone():
    reads = re.compile(r"\.get\([^)]*type=int\b|coerce=int\b|\bint\(request\.")
    app_folder = Path(__file__).parents[2] / "app"
    found = [
        f"{source.relative_to(app_folder)}:{number}"
        for source in app_folder.rglob("*.py")
        for number, line in enumerate(source.read_text().splitlines(), 1)
        if reads.search(line)
    ]
    assert found == [], "read whole numbers with app.bounds.whole_number"


@pytest.mark.parametrize("digits", ["9" * 23, "1" * 19, "-" + "9" * 23])
def test_a_launch_form_filled_from_an_absurd_deployment_number_opens_as_new(portal, digits):
    answer = portal.pages.get(f"/catalogue/test-notebook/?from_deployment={digits}")

    assert answer.status_code == 200, answer.status_code
