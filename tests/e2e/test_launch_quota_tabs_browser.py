"""The launch form in Italian, at laptop and phone width: while the live cost box says the
request does not fit, the tab holding the field to change is marked and the reason beside
Launch names it, Launch stays off as the server would refuse, and both clear once it fits."""

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import log_in
from tests.quotas.conftest import Quotas, charge

FORM = "/catalogue/jupyter-ml-gpu/"


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def ada(app, people):
    user_id = people.create("ada", "correct horse battery", display_name="Ada Lovelace")
    quotas = Quotas(app)
    quotas.limit("user", user_id, gpus="2", cores="64")
    quotas.hold(user_id, charge(cores=8, gpus=1), name="vecchio notebook")
    return user_id


@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_the_live_box_marks_the_tab_over_quota_in_italian(
    live_server, browser, shot, ada, width, height
):
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="it-IT", is_mobile=width < 500
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ada", "correct horse battery")
    page.goto(live_server.url + FORM)
    box = page.locator("#launch-summary")
    launch = page.locator("#launch-button")
    reason = page.locator("#launch-reason")
    basic, advanced = page.get_by_role("tab").nth(0), page.get_by_role("tab").nth(1)
    expect(box).to_contain_text("Rientra")
    expect(launch).to_be_enabled()
    expect(basic.locator(".quota-tab-badge")).to_be_hidden()

    # Two more GPUs than are left, typed on the first tab ("Basic"); the cores on "Advanced".
    page.locator("#num_gpus").fill("3")
    expect(box).to_contain_text("Non rientra:")
    expect(box).to_contain_text(
        "Richiede 3 GPU, ma il deployment vecchio notebook usa già 1 GPU del tuo limite di 2 GPU "
        "(2 GPU oltre il limite)."
    )
    expect(basic.locator(".quota-tab-badge")).to_be_visible()
    expect(basic.locator(".quota-tab-badge")).to_have_text("oltre la quota")
    expect(advanced.locator(".quota-tab-badge")).to_be_hidden()
    # The server refuses this launch: Launch is off, and says why beside itself.
    expect(launch).to_be_disabled()
    expect(reason).to_have_text(
        "Non puoi avviare finché la richiesta non rientra nella tua quota: scegli dimensioni più "
        "piccole nella scheda «Base», oppure elimina un deployment che non ti serve più."
    )
    launch.scroll_into_view_if_needed()
    shot(f"launch-over-quota-tab-it-{width}", target=page)

    # Then a box that fits again clears the mark and turns Launch back on.
    page.locator("#num_gpus").fill("1")
    expect(box).to_contain_text("Rientra")
    expect(basic.locator(".quota-tab-badge")).to_be_hidden()
    expect(launch).to_be_enabled()
    expect(reason).to_be_hidden()
    context.close()
