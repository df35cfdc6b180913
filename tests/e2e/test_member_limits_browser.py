"""A group's manager sets a member's limits and budget in the browser, at laptop and phone
width: the group's figures beside the member's, a value above the group's refused beside its
field with everything typed kept, then saved; axe-core finds nothing serious, nothing scrolls
sideways."""

import pytest
from playwright.sync_api import expect

from app.auth import managers
from app.auth.models import User
from app.extensions import db
from app.quotas.budgets import set_budget
from app.quotas.models import GROUP
from tests.e2e.conftest import log_in
from tests.e2e.test_lines_pages_browser import serious_problems
from tests.quotas.conftest import Quotas

PASSWORD = "correct horse battery"


@pytest.fixture
def group(app, people):
    ada = people.create("ada", PASSWORD)
    mia = people.create("mia", PASSWORD)
    with app.app_context():
        db.session.get(User, ada).groups = ["physics"]
        db.session.commit()
        managers.name_manager("physics", db.session.get(User, mia), "test")
        set_budget(None, GROUP, "physics", "gpus:A100", 500, 0, "grant 2026")
    Quotas(app).limit(GROUP, "physics", cores="32", gpus="8", memory="256 GB")
    return app


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_a_manager_sets_a_members_limits_and_budget(live_server, browser, group, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "mia", PASSWORD)
    page.goto(live_server.url + "/groups/physics/members/ada/limits")
    expect(page.locator(".group-limits-now")).to_contain_text("32 cores")
    assert serious_problems(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=_path(f"member-limits-{width}"), full_page=True)

    form = page.locator("#member-limits")
    form.get_by_label("CPU cores").fill("64")
    form.get_by_label("GPUs per model").fill("A100 = 2")
    form.get_by_label("Reason for the change").fill("thesis run")
    form.get_by_role("button", name="Save limits").click()
    expect(form.locator(".invalid-feedback")).to_contain_text(
        "Group physics's own limit is 32 cores; a member's cannot be more (got 64 cores)."
    )
    expect(form.get_by_label("GPUs per model")).to_have_value("A100 = 2")
    expect(form.get_by_label("Reason for the change")).to_have_value("thesis run")
    assert serious_problems(page) == []
    page.screenshot(path=_path(f"member-limits-refused-{width}"), full_page=True)

    form.get_by_label("CPU cores").fill("16")
    form.get_by_role("button", name="Save limits").click()
    expect(page.get_by_text("Limits saved for ada in group physics.")).to_be_visible()
    expect(page.locator(".member-limits-now")).to_contain_text("16 cores")

    budget = page.locator("#member-budgets form")
    budget.get_by_label("What it counts").select_option("model")
    budget.get_by_label("GPU model").fill("A100")
    budget.get_by_label("Hours per period").fill("100")
    budget.get_by_label("Reason for the change").fill("fair share")
    budget.get_by_role("button", name="Save budget").click()
    expect(page.get_by_text("Budget saved for ada in group physics.")).to_be_visible()
    expect(page.locator("#member-budgets")).to_contain_text("fair share")
    assert serious_problems(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=_path(f"member-limits-saved-{width}"), full_page=True)


def _path(name: str) -> str:
    from tests.e2e.conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / f"{name}.png")
