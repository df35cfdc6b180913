"""An operator manages the sites on the Capacity page in Chromium, in English and Italian at
laptop and phone width: adds a site, reads why a bad one is refused beside its field with what
was typed kept, changes it, and removes it after a confirmation that says what removal means.
axe finds no violations in any of those pages' content, and none scrolls sideways."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.e2e.test_every_page_browser import TWICE, overflow
from tests.launch.site_support import add_site

PASSWORD = "correct horse battery"

WORDS = {
    "en": {
        "add": "Add a site",
        "add_button": "Add the site",
        "save": "Save the site",
        "missing": "Give a placement: Infrastructure Manager reaches a site only through it.",
        "added": "Site CLOUD-VENETO added.",
        "change": "Change CLOUD-VENETO",
        "saved": "Site CLOUD-VENETO saved.",
        "remove": "Remove CLOUD-VENETO",
        "means": "its capacity numbers go",
        "removed": "Site CLOUD-VENETO removed",
    },
    "it": {
        "add": "Aggiungi un sito",
        "add_button": "Aggiungi il sito",
        "save": "Salva il sito",
        "missing": "Indica una collocazione: Infrastructure Manager raggiunge un sito solo",
        "added": "Sito CLOUD-VENETO aggiunto.",
        "change": "Modifica CLOUD-VENETO",
        "saved": "Sito CLOUD-VENETO salvato.",
        "remove": "Rimuovi CLOUD-VENETO",
        "means": "i suoi numeri di capacità spariscono",
        "removed": "Sito CLOUD-VENETO rimosso",
    },
}


@pytest.fixture
def app(make_app):
    app = make_app()
    add_site(app, "RECAS-BARI", placement="sla-recas-bari", gpus={"A100": 4})
    return app


def problems(page) -> list[str]:
    """What axe finds in the page's own part (the navigation bar and the demo banner are
    every page's, checked elsewhere), what does not fit the window, and ids said twice."""
    results = Axe().run(page, context="main")
    found = [
        f"{violation['id']} ({violation['impact']}) {node['target']}: {node['html'][:160]}"
        for violation in results.response["violations"]
        for node in violation["nodes"]
    ]
    return found + overflow(page) + page.evaluate(TWICE)


@pytest.mark.parametrize("language", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_an_operator_adds_changes_and_removes_a_site(
    live_server, browser, shot, people, language, width, height
):
    words = WORDS[language]
    people.create("olga", PASSWORD, roles=("operator",), display_name="Olga Operator")
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale="it-IT" if language == "it" else "en-GB",
        extra_http_headers={"Accept-Language": language},
        is_mobile=width < 500,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "olga", PASSWORD)
    name = f"sites-{language}-{width}"
    found = {}

    page.goto(live_server.url + "/capacity/")
    page.get_by_role("link", name=words["add"], exact=True).click()
    form = page.locator("form.site-form")
    form.locator("#name").fill("CLOUD-VENETO")
    form.locator("#backend").select_option("im")
    form.get_by_role("button", name=words["add_button"]).click()

    # Refused beside the placement, with what was typed kept.
    expect(page.locator("#placement.is-invalid")).to_be_visible()
    expect(page.locator("#placement ~ .invalid-feedback")).to_contain_text(words["missing"])
    expect(page.locator("#name")).to_have_value("CLOUD-VENETO")
    expect(page.locator("#backend")).to_have_value("im")
    found["refused"] = problems(page)
    shot(f"{name}-refused", target=page)

    page.locator("#placement").fill("veneto")
    page.locator("form.site-form button[type=submit]").click()
    expect(page.locator(".alert-success")).to_contain_text(words["added"])
    row = page.locator("tr", has=page.locator("th", has_text="CLOUD-VENETO"))
    expect(row).to_contain_text("im · veneto")
    found["added"] = problems(page)
    shot(f"{name}-added", target=page)

    row.get_by_role("link", name=words["change"]).click()
    expect(page.locator("#placement")).to_have_value("veneto")
    page.locator("#placement").fill("veneto-gpu")
    found["change"] = problems(page)
    shot(f"{name}-change", target=page)
    page.get_by_role("button", name=words["save"]).click()
    expect(page.locator(".alert-success")).to_contain_text(words["saved"])
    expect(row).to_contain_text("im · veneto-gpu")

    row.get_by_role("link", name=words["remove"]).click()
    expect(page.locator(".remove-site")).to_contain_text(words["means"])
    found["remove"] = problems(page)
    shot(f"{name}-remove", target=page)
    page.get_by_role("button", name=words["remove"]).click()
    expect(page.locator(".alert-success")).to_contain_text(words["removed"])
    expect(page.locator("th", has_text="CLOUD-VENETO")).to_have_count(0)
    expect(page.locator("th", has_text="RECAS-BARI")).to_have_count(1)
    context.close()

    assert not any(found.values()), found
