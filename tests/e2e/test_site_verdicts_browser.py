"""The launch form's sites, in English and Italian at laptop and phone width: each site's
verdict follows the request as it changes (the GPU model and count), names what binds and how
old its numbers are; a site that fits can be picked (the choice survives the live box's
updates and keeps the keyboard's focus); the list passes axe's checks."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, log_in
from tests.launch.site_support import add_site

FORM = "/catalogue/jupyter-ml-gpu/"
PASSWORD = "correct horse battery"

WORDS = {
    "en": {
        "title": "Where it can run",
        "t4": "needs 1 T4 GPU, none free at RECAS-BARI",
        "a100": "needs 2 A100 GPUs, none free at CLOUD-CNAF",
        "fits": "fits",
        "maintenance": "INFN-PADOVA is in maintenance",
        "age": "cluster statistics, read 3 minutes ago",
        "picked": "Fits your quota, and RECAS-BARI has room for it.",
    },
    "it": {
        "title": "Dove può girare",
        "t4": "richiede 1 GPU T4, disponibilità a RECAS-BARI: nessuna",
        "a100": "richiede 2 GPU A100, disponibilità a CLOUD-CNAF: nessuna",
        "fits": "ci sta",
        "maintenance": "INFN-PADOVA è in manutenzione",
        "age": "statistiche del cluster, letto 3 minuti fa",
        "picked": "Rientra nella tua quota, e RECAS-BARI ha posto.",
    },
}


@pytest.fixture
def app(catalogue_app):
    add_site(
        catalogue_app, "RECAS-BARI", placement="sla-recas-bari", minutes_old=3, gpus={"A100": 4}
    )
    add_site(catalogue_app, "CLOUD-CNAF", placement="sla-cloud-cnaf", minutes_old=5, gpus={"T4": 8})
    add_site(catalogue_app, "INFN-PADOVA", placement="sla-padova", maintenance=True)
    return catalogue_app


def accessibility_problems(page) -> list[str]:
    results = Axe().run(page, context=".site-verdicts")
    return [
        f"{violation['id']} {node['target']}: {node.get('failureSummary', '').strip()}"
        for violation in results.response["violations"]
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_the_sites_follow_the_request_and_one_that_fits_can_be_picked(
    live_server, browser, shot, people, language, width, height
):
    words = WORDS[language]
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale="it-IT" if language == "it" else "en-GB",
        is_mobile=width < 500,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", PASSWORD)
    page.goto(live_server.url + FORM)
    sites = page.locator(".site-verdicts")
    bari = sites.locator('[data-site="RECAS-BARI"]')
    cnaf = sites.locator('[data-site="CLOUD-CNAF"]')
    expect(sites).to_contain_text(words["title"])

    # One T4 (the template's default): only CLOUD-CNAF has T4s free.
    expect(bari).to_contain_text(words["t4"])
    expect(bari.get_by_role("radio")).to_be_disabled()
    expect(cnaf.locator(".site-badge")).to_have_text(words["fits"])
    expect(cnaf).to_contain_text(words["age"].replace("3", "5"))
    expect(sites.locator('[data-site="INFN-PADOVA"]')).to_contain_text(words["maintenance"])

    # Two A100s: now RECAS-BARI fits and CLOUD-CNAF does not.
    page.locator('input[name="gpu_model"][value="A100"]').check()
    page.locator("#num_gpus").fill("2")
    page.locator("#num_gpus").dispatch_event("change")
    expect(cnaf).to_contain_text(words["a100"])
    expect(bari.locator(".site-badge")).to_have_text(words["fits"])
    expect(bari).to_contain_text(words["age"])

    # Picked with the keyboard: the choice and the focus stay through the box's update.
    bari.get_by_role("radio").focus()
    page.keyboard.press("Space")
    expect(sites.locator(".site-headline")).to_have_text(words["picked"])
    expect(bari.get_by_role("radio")).to_be_checked()
    expect(bari.get_by_role("radio")).to_be_focused()
    assert accessibility_problems(page) == []

    sites.scroll_into_view_if_needed()
    shot(f"launch-sites-{language}-{width}", target=page, full_page=width < 500)
    if width >= 500:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        box = page.locator(".launch-sidebar")
        box.screenshot(path=str(ARTIFACTS / f"launch-sites-{language}-{width}-box.png"))
    context.close()
