"""Taking over in the browser, at laptop and phone width, in English and Italian: once its
owner's account is disabled, a co-owner finds Take over on the deployment's page with what it
means, confirms, and owns it; one it does not fit is refused in words with the numbers. axe-core
finds nothing serious, nothing scrolls sideways."""

import socket

import pytest
from playwright.sync_api import expect

from app.auth.models import User
from app.auth.operations import set_active
from app.deployments import sharing
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.editing import parse_limit, set_limits
from app.quotas.models import USER
from tests.e2e.conftest import log_in
from tests.e2e.test_lines_pages_browser import serious_problems

PASSWORD = "correct horse battery"
WORDS = {
    "en": {
        "button": "Take over…",
        "taken": "You own Evening cluster now; it is charged to you.",
        "refused": "It needs 2 GPUs; you have 1 GPU left of your limit of 1 GPU.",
    },
    "it": {
        "button": "Prendi in carico…",
        "taken": "Ora Evening cluster è tuo; è addebitato a te.",
        "refused": "Richiede 2 GPU; disponibilità residua: 1 GPU su un limite di 1 GPU.",
    },
}


@pytest.fixture
def app(make_app):
    # The orchestrator is asked in the portal's name (a service identity): nothing on these
    # pages calls it, so it is where nothing listens.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return make_app(
        ORCHESTRATOR_URL=f"http://127.0.0.1:{port}",
        ORCHESTRATOR_SERVICE_IDENTITY={"token": "service-token"},
    )


@pytest.fixture
def world(app, people):
    olga = people.create("olga", PASSWORD)
    carla = people.create("carla", PASSWORD)
    made = []
    with app.app_context():
        owner = db.session.get(User, olga)
        owner.groups = ["physics"]
        db.session.get(User, carla).groups = ["physics"]
        for name, gpus in (("Evening cluster", 0), ("GPU notebook", 2)):
            deployment = Deployment(
                user_id=olga,
                name=name,
                template_slug="jupyter",
                template_name="Jupyter",
                status="ready",
                group_name="physics",
                parameters={},
                outputs={},
                charge={"cores": 4, "gpus": gpus, "deployments": 1},
            )
            db.session.add(deployment)
            db.session.commit()
            sharing.share(owner, deployment, "user", "carla", "co-owner")
            made.append(deployment.id)
        set_limits(None, USER, str(carla), {"gpus": parse_limit("gpus", "1")}, "test")
        set_active(db.session.get(User, olga), False)
        db.session.commit()
    return made


@pytest.mark.parametrize(
    ("width", "height", "language"), [(1280, 860, "en"), (390, 844, "en"), (1280, 860, "it")]
)
def test_a_co_owner_takes_over_from_the_page_and_is_refused_in_words_when_it_does_not_fit(
    live_server, browser, shot, world, width, height, language
):
    fits, too_big = world
    options = {
        "viewport": {"width": width, "height": height},
        "is_mobile": width < 500,
        "extra_http_headers": {"Accept-Language": language},
    }
    page = browser.new_context(**options).new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "carla", PASSWORD)
    page.goto(f"{live_server.url}/deployments/{fits}")
    button = page.locator(".take-over summary")
    expect(button).to_have_text(WORDS[language]["button"])
    assert serious_problems(page) == []
    shot(f"take-over-button-{language}-{width}", page, full_page=False)
    button.click()
    expect(page.locator(".take-over-form")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(page) == []
    shot(f"take-over-confirm-{language}-{width}", page, full_page=False)
    page.locator(".take-over-form button[type=submit]").click()
    expect(page.locator(".alert-success")).to_contain_text(WORDS[language]["taken"])
    expect(page.locator(".take-over")).to_have_count(0)

    page.goto(f"{live_server.url}/deployments/{too_big}")
    page.locator(".take-over summary").click()
    page.locator(".take-over-form button[type=submit]").click()
    expect(page.locator(".alert-danger")).to_contain_text(WORDS[language]["refused"])
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(f"take-over-refused-{language}-{width}", page, full_page=False)
