"""Two browsers try every cross-user path: a stranger's browser asks for every page and partial
that takes a deployment (from the application's own URL map) with someone else's deployment and
is answered 404, whatever the method; a viewer's open page, which polls, learns at its next poll
that the owner stopped sharing, says so in the reader's language and stops polling."""

import re

import pytest
from playwright.sync_api import expect

from app.auth.models import User
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from tests.deployments.test_access_matrix import (
    BY_SECRET,
    OPERATORS_PAGE,
    ROUTES,
    deployment_routes,
)
from tests.e2e.conftest import log_in
from tests.e2e.test_lines_pages_browser import serious_problems

PASSWORD = "correct horse battery"
NAME = "Evening notebook"
GONE = {
    "en": "This page no longer updates: the deployment was deleted, or it is no longer shared",
    "it": "Questa pagina non si aggiorna più",
}


@pytest.fixture
def app(make_app):
    return make_app(DEPLOYMENTS_POLL_SECONDS=1)


@pytest.fixture
def world(app, people):
    olga = people.create("olga", PASSWORD)
    people.create("bruno", PASSWORD)
    people.create("carla", PASSWORD)
    with app.app_context():
        owner = db.session.get(User, olga)
        owner.groups = ["physics"]
        deployment = Deployment(
            user_id=olga,
            name=NAME,
            template_slug="jupyter",
            template_name="Jupyter",
            status="creating",  # in progress: its page polls
            group_name="physics",
            parameters={},
            outputs={"endpoint": "https://notebook.example.org/"},
            charge={},
        )
        db.session.add(deployment)
        db.session.commit()
        sharing.share(owner, deployment, "user", "bruno", "viewer")
        return deployment.id


def _path(rule, deployment_id: int) -> str:
    """The rule's path for ``deployment_id``, any other argument filled with a plain word."""
    values = {name: "endpoint" for name in rule.arguments}
    values["deployment_id"] = deployment_id
    path = rule.rule
    for name, value in values.items():
        path = re.sub(rf"<(?:[^:<>]+:)?{name}>", str(value), path)
    return path


def _browser(browser, language, width=1280, height=860):
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=width < 500,
        extra_http_headers={"Accept-Language": language},
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


def test_a_strangers_browser_gets_not_found_on_every_route_of_someone_elses_deployment(
    app, live_server, browser, world
):
    _, carla = _browser(browser, "en")
    log_in(carla, live_server.url, "carla", PASSWORD)
    carla.goto(f"{live_server.url}/account/")
    token = carla.locator("input[name=csrf_token]").first.input_value()
    asked = 0
    for endpoint, method, rule in deployment_routes(app):
        needs = {need for needs, _body in ROUTES[(endpoint, method)] for need in needs}
        if BY_SECRET in needs or endpoint.startswith("api."):
            # The backend's callback takes no person; the API takes tokens, not a browser's
            # session (two tokens try it in tests/deployments/test_access_matrix.py).
            continue
        url = live_server.url + _path(rule, world)
        if method == "GET":
            answer = carla.goto(url)
            status, text = answer.status, carla.content()
        else:
            answer = carla.request.fetch(
                url,
                method=method,
                form={"csrf_token": token},
            )
            status, text = answer.status, answer.text()
        allowed = {403, 404} if OPERATORS_PAGE in needs else {404}
        assert status in allowed, (endpoint, method, status)
        assert NAME not in text and "notebook.example.org" not in text, (endpoint, method)
        asked += 1
    assert asked >= 15  # every page and partial of a deployment was asked


@pytest.mark.parametrize(
    ("language", "width", "height"), [("en", 1280, 860), ("it", 390, 844)], ids=["en", "it-phone"]
)
def test_a_viewers_open_page_learns_at_its_next_poll_that_the_share_was_revoked(
    live_server, browser, shot, world, language, width, height
):
    bruno_context, bruno = _browser(browser, language, width, height)
    log_in(bruno, live_server.url, "bruno", PASSWORD)
    page_url = f"{live_server.url}/deployments/{world}"
    bruno.goto(page_url)
    expect(bruno.locator("h1")).to_contain_text(NAME)
    # The page polls its status (every second here): wait for one poll to have been answered.
    with bruno.expect_response(lambda r: f"/deployments/{world}/status" in r.url):
        pass

    _, olga = _browser(browser, "en")
    log_in(olga, live_server.url, "olga", PASSWORD)
    olga.goto(page_url)
    olga.get_by_role("button", name="Stop sharing with bruno").click()
    expect(olga.locator(".alert")).to_contain_text("bruno")

    gone = bruno.locator(".deployment-gone")
    expect(gone).to_contain_text(GONE[language])
    expect(bruno.locator("#deployment-status a")).to_have_attribute("href", "/deployments/")
    # The status is no longer shown, and the page stopped asking.
    expect(bruno.locator("#deployment-status [hx-get]")).to_have_count(0)
    assert bruno.locator("#deployment-status").get_attribute("hx-get") is None
    assert bruno.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(bruno) == []
    shot(f"cross-user-revoked-{language}-{width}", bruno, full_page=False)

    assert bruno.goto(page_url).status == 404
    # The poll answered 404 (the rule's answer to whoever may no longer see it), which the
    # browser reports on the page's console: that, and only that, is expected here.
    errors = bruno_context.console_watch.errors
    refused_poll = (
        f"/deployments/{world}: Failed to load resource: the server responded with a status of 404"
    )
    expected = [e for e in errors if refused_poll in e]
    assert errors == expected, errors
    errors.clear()
