"""Sharing a deployment in the browser, at laptop and phone width, in English and Italian: the
owner shares it by keyboard from its page, the person it is shared with finds it under
"Shared with me"; axe-core finds nothing serious, nothing scrolls sideways."""

import pytest
from playwright.sync_api import expect

from app.deployments.models import Deployment
from app.extensions import db
from tests.e2e.conftest import log_in
from tests.e2e.test_lines_pages_browser import serious_problems

PASSWORD = "correct horse battery"
WORDS = {
    "en": {"shared": "Shared with bruno as co-owner.", "mine": "Shared with me"},
    "it": {"shared": "Condiviso con bruno come comproprietario.", "mine": "Condivisi con me"},
}


@pytest.fixture
def shared_world(app, people):
    olga = people.create("olga", PASSWORD)
    people.create("bruno", PASSWORD)
    with app.app_context():
        from app.auth.models import User

        owner = db.session.get(User, olga)
        owner.groups = ["physics"]
        deployment = Deployment(
            user_id=olga,
            name="Evening notebook",
            template_slug="jupyter",
            template_name="Jupyter",
            status="ready",
            group_name="physics",
            parameters={},
            outputs={},
            charge={},
        )
        db.session.add(deployment)
        db.session.commit()
        return deployment.id


@pytest.mark.parametrize(
    ("width", "height", "language"), [(1280, 860, "en"), (390, 844, "en"), (1280, 860, "it")]
)
def test_the_owner_shares_by_keyboard_and_the_colleague_finds_it(
    live_server, browser, shot, shared_world, width, height, language
):
    options = {
        "viewport": {"width": width, "height": height},
        "is_mobile": width < 500,
        "extra_http_headers": {"Accept-Language": language},
    }
    owner = browser.new_context(**options).new_page()
    owner.set_default_timeout(10_000)
    log_in(owner, live_server.url, "olga", PASSWORD)
    owner.goto(f"{live_server.url}/deployments/{shared_world}")
    expect(owner.locator("#access")).to_be_visible()
    assert serious_problems(owner) == []
    # By keyboard: the kind, the name, the role, then the button.
    owner.locator("#share-kind").focus()
    owner.keyboard.press("Tab")
    owner.keyboard.type("bruno")
    owner.keyboard.press("Tab")
    owner.locator("#share-role").select_option("co-owner")  # a select, as the keyboard sets it
    expect(owner.locator("#share-role")).to_be_focused()
    owner.keyboard.press("Tab")
    owner.keyboard.press("Enter")
    expect(owner.locator(".alert")).to_contain_text(WORDS[language]["shared"])
    expect(owner.locator(".access-share")).to_have_count(1)
    assert owner.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(owner) == []
    owner.locator("#access").scroll_into_view_if_needed()
    shot(f"sharing-owner-{language}-{width}", owner, full_page=False)

    colleague = browser.new_context(**options).new_page()
    colleague.set_default_timeout(10_000)
    log_in(colleague, live_server.url, "bruno", PASSWORD)
    colleague.goto(f"{live_server.url}/deployments/?shared=1")
    expect(colleague.locator(".shared-mark")).to_have_count(1)
    expect(colleague.locator("h1")).to_contain_text(WORDS[language]["mine"])
    assert colleague.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(colleague) == []
    shot(f"sharing-colleague-list-{language}-{width}", colleague, full_page=False)
