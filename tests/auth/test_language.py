"""Each person's language and time zone: chosen in the navigation bar or on the Account page,
kept on the account, else in the session, else the browser's, else the site's."""

import re
from datetime import datetime

import pytest

from app.auth.models import User
from app.clock import use_clock
from app.extensions import db
from app.i18n import SESSION_KEY
from tests.conftest import csrf_from


def html_lang(response) -> str:
    match = re.search(r'<html lang="([^"]+)">', response.get_data(as_text=True))
    assert match, "the page has no <html lang>"
    return match.group(1)


def switch(client, locale, next_url="/login", page="/login", headers=None):
    token = csrf_from(client.get(page, headers=headers).get_data(as_text=True))
    return client.post(
        "/language",
        data={"csrf_token": token, "locale": locale, "next": next_url},
        headers=headers,
    )


def stored(app, user_id) -> User:
    with app.app_context():
        user = db.session.get(User, user_id)
        db.session.expunge(user)
        return user


def set_account(app, user_id, **values) -> None:
    with app.app_context():
        user = db.session.get(User, user_id)
        for name, value in values.items():
            setattr(user, name, value)
        db.session.commit()


ITALIAN = {"Accept-Language": "it-IT,it;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


# --- Which language a page speaks -----------------------------------------------------------


def test_without_any_choice_the_site_default_is_spoken(make_app):
    english, italian = make_app(), make_app(DEFAULT_LOCALE="it")
    assert html_lang(english.test_client().get("/login")) == "en"
    response = italian.test_client().get("/login")
    assert html_lang(response) == "it"
    assert "Vai al contenuto" in response.get_data(as_text=True)


def test_the_browsers_language_comes_before_the_site_default(make_app):
    client = make_app(DEFAULT_LOCALE="it").test_client()
    assert html_lang(client.get("/login", headers=ENGLISH)) == "en"
    assert html_lang(client.get("/login", headers={"Accept-Language": "de, fr"})) == "it"


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("it-IT", "it"),
        ("de-DE,it-CH;q=0.8,en;q=0.5", "it"),
        ("en-US,it;q=0.9", "en"),
        ("fr;q=0.9, IT_it;q=0.4, *;q=0.1", "it"),
    ],
)
def test_the_browsers_first_language_the_portal_speaks_is_spoken(client, header, lang):
    assert html_lang(client.get("/login", headers={"Accept-Language": header})) == lang


def test_the_switch_comes_before_the_browsers_language(client):
    response = switch(client, "it", next_url="/login?next=%2Fcatalogue%2F", headers=ENGLISH)
    assert response.status_code == 302
    assert response.headers["Location"] == "/login?next=%2Fcatalogue%2F"
    page = client.get("/login", headers=ENGLISH)
    assert html_lang(page) == "it"
    assert "Vai al contenuto" in page.get_data(as_text=True)
    # The switch marks the language in use, each named in itself.
    assert re.search(
        r'value="it" lang="it" aria-label="Italiano" title="Italiano"\s+'
        r'class="btn btn-sm btn-light"\s+aria-current="true"',
        page.get_data(as_text=True),
    )


def test_the_accounts_language_comes_before_the_session(app, client, people):
    user_id = people.login_as()
    set_account(app, user_id, locale="it")
    with client.session_transaction() as session:
        session[SESSION_KEY] = "en"
    assert html_lang(client.get("/account/", headers=ENGLISH)) == "it"


def test_a_language_chosen_before_login_moves_to_the_account(app, client, people):
    user_id = people.create("ada")
    switch(client, "it", headers=ENGLISH)
    assert people.login("ada").status_code == 302
    assert stored(app, user_id).locale == "it"
    # Another browser, asking for English, meets the account's choice.
    other = app.test_client()
    people.login("ada", client=other)
    assert html_lang(other.get("/account/", headers=ENGLISH)) == "it"


def test_logging_in_without_a_choice_keeps_the_accounts_language(app, client, people):
    user_id = people.create("ada")
    set_account(app, user_id, locale="it")
    people.login("ada")
    assert stored(app, user_id).locale == "it"


def test_the_switch_while_logged_in_changes_the_account(app, client, people):
    user_id = people.login_as()
    response = switch(client, "it", next_url="/account/", page="/account/", headers=ENGLISH)
    assert response.headers["Location"] == "/account/"
    assert stored(app, user_id).locale == "it"
    assert html_lang(client.get("/account/", headers=ENGLISH)) == "it"


def test_the_login_page_after_logout_keeps_the_persons_language(app, client, people):
    user_id = people.login_as()
    set_account(app, user_id, locale="it")
    token = csrf_from(client.get("/account/").get_data(as_text=True))
    client.post("/logout", data={"csrf_token": token})
    page = client.get("/login", headers=ENGLISH)
    assert html_lang(page) == "it"


def test_the_switch_refuses_an_unknown_language_in_words(client):
    response = switch(client, "xx", headers=ENGLISH)
    assert response.status_code == 302
    page = client.get("/login", headers=ENGLISH).get_data(as_text=True)
    assert "The portal does not speak “xx”. Choose one of: English, Italiano." in page
    with client.session_transaction() as session:
        assert SESSION_KEY not in session


def test_the_switch_never_leads_off_the_site(client):
    response = switch(client, "it", next_url="//evil.example.org/")
    assert response.headers["Location"] == "/"


# --- The Account page -----------------------------------------------------------------------


def save(client, **data):
    token = csrf_from(client.get("/account/").get_data(as_text=True))
    return client.post("/account/language", data={"csrf_token": token, **data})


def test_the_account_page_keeps_a_language_and_a_time_zone(app, client, people):
    user_id = people.login_as()
    page = client.get("/account/", headers=ENGLISH).get_data(as_text=True)
    assert "Language and time zone" in page
    assert "The site's time zone (UTC)" in page
    assert '<optgroup label="Europe">' in page and '<option value="Europe/Rome" >Rome' in page

    response = save(client, locale="it", timezone="Europe/Rome")
    assert response.headers["Location"] == "/account/"
    user = stored(app, user_id)
    assert (user.locale, user.timezone) == ("it", "Europe/Rome")
    page = client.get("/account/", headers=ENGLISH).get_data(as_text=True)
    # Said in the language just chosen.
    assert "Lingua e fuso orario salvati. Gli orari sono mostrati nel fuso Europe/Rome." in page
    assert '<option value="Europe/Rome" selected>Rome' in page


def test_the_time_zone_changes_the_times_shown(app, client, people):
    user_id = people.login_as()
    with use_clock(lambda: datetime(2026, 11, 25, 13, 5)):
        page = client.get("/account/", headers=ENGLISH).get_data(as_text=True)
        assert "Now: Nov 25, 2026, 13:05 UTC." in page
        set_account(app, user_id, timezone="Europe/Rome", locale="it")
        page = client.get("/account/").get_data(as_text=True)
        assert "Adesso: 25 nov 2026, 14:05 CET." in page
        set_account(app, user_id, timezone="America/New_York", locale="en")
        page = client.get("/account/").get_data(as_text=True)
        assert "Now: Nov 25, 2026, 08:05 EST." in page


def test_an_empty_time_zone_follows_the_site(make_app, people_for):
    app = make_app(DEFAULT_TIMEZONE="Europe/Rome")
    client = app.test_client()
    people = people_for(app, client)
    user_id = people.login_as()
    save(client, locale="en", timezone="")
    assert stored(app, user_id).timezone is None
    page = client.get("/account/").get_data(as_text=True)
    assert "The site's time zone (Europe/Rome)" in page
    assert "Times are shown in Europe/Rome." in page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"locale": "it", "timezone": "Mars/Olympus_Mons"},
            "“Mars/Olympus_Mons” non è un fuso orario che il portale conosce. Scegline uno "
            "dall&#39;elenco, per esempio Europe/Rome.",
        ),
        (
            {"locale": "klingon", "timezone": "Europe/Rome"},
            "Il portale non è disponibile in “klingon”. Scegli una di queste lingue: English, "
            "Italiano.",
        ),
    ],
)
def test_an_unknown_choice_is_refused_in_words_and_nothing_is_lost(
    app, client, people, data, message
):
    user_id = people.login_as()
    set_account(app, user_id, locale="it", timezone="Asia/Tokyo")
    response = save(client, **data)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert message in page
    assert 'aria-invalid="true"' in page
    user = stored(app, user_id)
    assert (user.locale, user.timezone) == ("it", "Asia/Tokyo")
    if data["timezone"] == "Europe/Rome":  # what was typed and valid is still chosen
        assert '<option value="Europe/Rome" selected>' in page


def test_the_account_page_speaks_english_when_asked(client, people):
    people.login_as()
    page = client.get("/account/", headers=ENGLISH).get_data(as_text=True)
    assert "Save language and time zone" in page
    page = client.get("/account/", headers=ITALIAN).get_data(as_text=True)
    assert "Salva lingua e fuso orario" in page
