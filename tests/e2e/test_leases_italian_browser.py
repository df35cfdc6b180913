"""An Italian researcher's countdown in Chromium: the script that keeps it current takes its
words from the page (rendered in Italian), not from English written in the script. Laptop and
phone widths."""

import re
import shutil
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in

PASSWORD = "correct horse battery"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 860}


@pytest.fixture
def portal(make_app, starter_catalogue_db, tmp_path, live_server_for):
    """A deployment of ada's, ready for 1 day 2 hours more, with a policy that allows extends."""
    from app.auth.cli import create_local_user
    from app.clock import utcnow
    from app.deployments.models import Deployment
    from app.extensions import db
    from app.leases.editing import parse_field, set_policy
    from app.leases.models import RUNNING, Lease

    target = tmp_path / "leases-italian.sqlite"
    shutil.copy(starter_catalogue_db, target)
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}", ORCHESTRATOR_URL="demo")
    with app.app_context():
        user = create_local_user("ada", PASSWORD, display_name="Ada Lovelace")
        user.timezone = "Europe/Rome"
        policy = {"default": "1d", "extend_step": "1d", "cap": "14d", "extend_window": "3d"}
        changes = {key: parse_field(key, text) for key, text in policy.items()}
        set_policy(None, "jupyter-vm", None, changes, "browser test")
        now = utcnow()
        deployment = Deployment(
            user_id=user.id,
            uuid="11111111-0000-4000-8000-000000000001",
            name="Analisi della tesi",
            template_slug="jupyter-vm",
            template_name="Jupyter",
            status="ready",
            site="RECAS-BARI",
            charge={"cores": 2, "gpus": 1},
            created_at=now - timedelta(hours=1),
        )
        db.session.add(deployment)
        db.session.flush()
        db.session.add(
            Lease(
                deployment_id=deployment.id,
                state=RUNNING,
                minutes=24 * 60,
                started_at=now - timedelta(hours=1),
                ends_at=now + timedelta(days=1, hours=2, minutes=30),
                extends=0,
            )
        )
        db.session.commit()
    return live_server_for(app)


@pytest.fixture
def italian(browser):
    """An Italian browser: every request asks for Italian (after logging in, which other
    tests cover in each language)."""
    return browser.new_context(viewport=LAPTOP)


def redrawn_by_the_script(page, countdown) -> None:
    """Empty the countdown and have the script draw it again (as after an htmx swap)."""
    countdown.locator("[data-countdown-text]").evaluate("element => element.textContent = ''")
    page.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:afterSwap', {bubbles: true}))")


def test_an_italian_reads_the_countdown_in_italian_at_laptop_and_phone_width(portal, italian):
    page = italian.new_page()
    page.set_default_timeout(10_000)
    log_in(page, portal.url, "ada", PASSWORD)
    italian.set_extra_http_headers({"Accept-Language": "it"})

    page.goto(portal.url + "/deployments/")
    countdown = page.locator(".lease-left [data-countdown]").first
    expect(countdown).to_contain_text("Tempo residuo: 1 giorno 2 ore")
    redrawn_by_the_script(page, countdown)
    expect(countdown.locator("[data-countdown-text]")).to_have_text("1 giorno 2 ore")
    expect(page.locator(".deployment-table")).to_contain_text("Pronto")
    page.screenshot(path=str(_artifact("leases-italian-list")), full_page=True)

    page.goto(portal.url + "/deployments/1")
    panel = page.locator("#lease")
    expect(panel).to_contain_text("Periodo di utilizzo")
    countdown = panel.locator("[data-countdown]")
    redrawn_by_the_script(page, countdown)
    expect(countdown).to_have_text("Tempo residuo: 1 giorno 2 ore")
    expect(panel.get_by_role("button", name="Proroga")).to_be_enabled()
    # The end, in the reader's own time zone (named) and language, as every time is written.
    expect(panel.locator("time").first).to_have_text(
        re.compile(r"^\d+ \w+ \d{4}, \d\d:\d\d CES?T$")
    )
    page.screenshot(path=str(_artifact("leases-italian-panel")), full_page=True)

    page.set_viewport_size(PHONE)
    page.reload()
    expect(page.locator("#lease [data-countdown]")).to_contain_text("1 giorno 2 ore")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(_artifact("leases-italian-panel-phone")), full_page=True)
    page.goto(portal.url + "/deployments/")
    expect(page.locator(".lease-left [data-countdown]").first).to_contain_text("1 giorno 2 ore")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(_artifact("leases-italian-list-phone")), full_page=True)


def _artifact(name: str):
    from tests.e2e.conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"
