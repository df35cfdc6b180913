"""The Group page in the browser, at laptop and phone width, in English and Italian: a manager
reaches it by keyboard from the navigation bar's "My groups", pages through the group's
running deployments, and axe-core finds nothing serious; nothing scrolls sideways."""

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from app.clock import utcnow
from tests.e2e.conftest import log_in
from tests.groups.conftest import Group
from tests.quotas.conftest import Quotas

PASSWORD = "correct horse battery"
SERIOUS = ("serious", "critical")


@pytest.fixture
def physics(app, people):
    group = Group(app, people)
    group.person("pi", groups=["physics-pi"], display_name="Enrico Pi")
    group.manager("physics", "pi")
    members = [
        group.person(f"member-{n:02d}", groups=["physics"], display_name=f"Member {n}")
        for n in range(12)
    ]
    start = utcnow() - timedelta(days=3)
    for n in range(40):
        models = {"A100": 1} if n % 3 == 0 else {}
        group.running(
            members[n % len(members)],
            "physics",
            name=f"analysis-run-{n:02d}",
            created_at=start + timedelta(minutes=n),
            cores=4,
            gpus=len(models),
            gpu_models=models,
        )
    line = "group:physics:gpus:A100"
    for n in range(3):
        group.waiting(members[n], "physics", f"waiting-job-{n}", line, start + timedelta(hours=n))
    Quotas(app).limit("group", "physics", cores="200", gpus="16")
    Quotas(app).limit("member", "physics", gpus="2")
    group.budget("physics", "gpus:A100", 500.0)
    group.budget("physics", "cores", 10000.0)
    return app


def serious_problems(page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']}: {node['target']}"
        for violation in results.response["violations"]
        if violation.get("impact") in SERIOUS
        for node in violation["nodes"]
    ]


def tab_to(page, selector: str, presses: int = 80) -> None:
    """Press Tab until the element ``selector`` names has the focus."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize(
    ("width", "height", "language"),
    [(1366, 860, "en"), (390, 844, "en"), (1366, 860, "it"), (390, 844, "it")],
)
def test_a_manager_reaches_and_reads_the_group_page_by_keyboard(
    live_server, browser, shot, physics, width, height, language
):
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=width < 500,
        extra_http_headers={"Accept-Language": language},
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "pi", PASSWORD)
    page.goto(live_server.url + "/deployments/")

    tab_to(page, "a[href='/groups/']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/groups/")
    assert serious_problems(page) == []
    shot(f"groups-list-{language}-{width}", page)
    tab_to(page, "a[href='/groups/physics']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/groups/physics")

    expect(page.locator(".group-members tbody tr")).to_have_count(12)
    expect(page.locator(".group-running tbody tr")).to_have_count(25)
    expect(page.locator(".group-waiting tbody tr")).to_have_count(3)
    expect(page.locator(".group-budgets tbody tr")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(page) == []
    shot(f"group-page-{language}-{width}", page)

    tab_to(page, "#running a[rel=next]")
    page.keyboard.press("Enter")
    page.wait_for_url("**running=2**")
    expect(page.locator(".group-running tbody tr")).to_have_count(15)
    expect(page.locator(".group-running")).to_contain_text("analysis-run-00")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert serious_problems(page) == []
    shot(f"group-page-running-2-{language}-{width}", page, full_page=False)
