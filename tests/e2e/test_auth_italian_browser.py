"""In an Italian browser: logging in, the Account page and the admins' user pages, at laptop and
phone width. Italian runs longer than English; nothing may spill out sideways."""

import pytest
from playwright.sync_api import expect

PASSWORD = "correct horse battery"
SIZES = {
    "laptop": {"viewport": {"width": 1280, "height": 860}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True},
}


def _fits(page) -> list[str]:
    """Nothing reaches past the right edge of the window: an empty list, else what does."""
    return page.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1
                         && !e.closest('.table-responsive, .dropdown-menu'))
            .map(e => e.tagName + '.' + e.className + ' '
                      + Math.round(e.getBoundingClientRect().right))"""
    )


@pytest.mark.parametrize("size", SIZES)
def test_an_italian_admin_logs_in_and_reads_the_account_and_user_pages(
    app, people, live_server, browser, shot, size
):
    people.create("root", PASSWORD, roles=("admin",), display_name="Amministratrice Portale")
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    page = browser.new_context(locale="it-IT", **SIZES[size]).new_page()
    page.set_default_timeout(10_000)

    page.goto(live_server.url + "/login")
    expect(page.get_by_role("heading", name="Accedi")).to_be_visible()
    page.get_by_label("Nome utente").fill("root")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Accedi", exact=True).click()
    expect(page.get_by_text("Nome utente sconosciuto o password errata.")).to_be_visible()
    assert not _fits(page)
    shot(f"it-login-refused-{size}", target=page)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Accedi", exact=True).click()
    expect(page.get_by_text("Ti diamo il benvenuto, Amministratrice Portale.")).to_be_visible()

    page.goto(live_server.url + "/account/")
    expect(page.get_by_role("heading", name="Il tuo account")).to_be_visible()
    expect(page.get_by_role("heading", name="Dove hai effettuato l'accesso")).to_be_visible()
    expect(page.get_by_text("Questo browser")).to_have_count(1)
    assert not _fits(page)
    shot(f"it-account-{size}", target=page)

    page.goto(live_server.url + "/admin/users/")
    expect(page.get_by_role("heading", name="Utenti")).to_be_visible()
    assert not _fits(page)
    shot(f"it-admin-users-{size}", target=page)
    page.get_by_role("link", name="ada").click()
    page.wait_for_load_state()
    page.get_by_label("Gruppo da aggiungere").fill("gpu-users")
    page.get_by_role("button", name="Aggiungi gruppo").click()
    expect(page.get_by_text("ada ora fa parte di gpu-users.")).to_be_visible()
    assert not _fits(page)
    shot(f"it-admin-user-{size}", target=page)
