"""Login, the Account page, sessions, tokens and the users admin pages in Italian.

Each page is asked for with ``Accept-Language: it``; besides the Italian sentences it must
show, its visible text may hold none of the English sentences of the login and account pages
(those the catalogue translates into something else).
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from flask_babel import force_locale

from app.auth import throttle
from app.clock import utcnow
from tests.conftest import csrf_from, post_form

OLD = "correct horse battery"
NEW = "a brand new passphrase"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
CATALOGUE = Path(__file__).resolve().parents[2] / "translations/it/LC_MESSAGES/messages.po"
# The command line speaks English on purpose; its words are not on any page.
OUR_FILES = re.compile(r"^(app/auth/(?!cli\.py|token_cli\.py)|templates/auth/)")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")
# What other features lend the Account page, checked by their own tests.
LENT_SECTIONS = {"email-choices"}


def _english_phrases() -> set[str]:
    """The English words of this feature's pages that Italian says differently, as phrases
    (the pieces of each message between its placeholders)."""
    with CATALOGUE.open("rb") as f:
        catalogue = read_po(f)
    phrases = set()
    for message in catalogue:
        if not message.id or not any(OUR_FILES.match(path) for path, _line in message.locations):
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        italian = " ".join(
            s
            for s in ([message.string] if isinstance(message.string, str) else message.string)
            if s
        )
        for english in ids:
            for piece in PLACEHOLDER.split(english):
                piece = piece.strip(" .,:;()·“”'")
                if len(re.sub(r"[^A-Za-z]", "", piece)) >= 4 and piece not in italian:
                    phrases.add(piece)
    return phrases


ENGLISH = _english_phrases()


class _Visible(HTMLParser):
    """The text people read or hear: text nodes, placeholders, labels for screen readers."""

    def __init__(self):
        super().__init__()
        self.parts, self._hidden, self._open = [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        hides = tag in ("script", "style", "title") or attrs.get("id") in LENT_SECTIONS
        if tag in ("section", "script", "style", "title"):
            self._open.append(hides)
            self._hidden += hides
        if not self._hidden:
            self.parts += [v for k, v in attrs.items() if k in ("placeholder", "aria-label") and v]

    def handle_endtag(self, tag):
        if tag in ("section", "script", "style", "title"):
            self._hidden -= self._open.pop()

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    """The visible text of the page's main region, on one line."""
    main = html[html.index("<main") : html.index("</main>")]
    parser = _Visible()
    parser.feed(main)
    return " ".join(" ".join(parser.parts).split())


def assert_no_english(html: str) -> None:
    text = visible(html)
    left = sorted(p for p in ENGLISH if re.search(r"(?<!\w)" + re.escape(p) + r"(?!\w)", text))
    assert not left, f"English left on an Italian page: {left}\n{text}"


@pytest.fixture
def italian(client):
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    return client


def change(client, current=OLD, new=NEW, repeated=None):
    return post_form(
        client,
        "/account/",
        "/account/password",
        {"current_password": current, "new_password": new, "repeated": repeated or new},
    )


def test_the_known_english_covers_the_pages_it_checks():
    # The check below means something only if it knows these pages' sentences.
    assert {"Unknown username or wrong password", "Where you are logged in"} <= ENGLISH


def test_the_login_page_speaks_italian(italian, client, app):
    html = italian.get("/login").get_data(as_text=True)
    assert "Avvia notebook, macchine virtuali e cluster sul cloud per la ricerca." in html
    assert "Nome utente" in html and ">Accedi</button>" in html
    assert_no_english(html)
    english = app.test_client().get("/login").get_data(as_text=True)
    assert "Launch notebooks, virtual machines and clusters" in english
    assert "Username" in english and ">Log in</button>" in english


def test_a_failed_login_is_explained_in_italian(italian, people, app):
    people.create("ada")
    response = people.login("ada", "not the password")
    assert response.status_code == 401
    html = response.get_data(as_text=True)
    assert "Nome utente sconosciuto o password errata." in html
    assert_no_english(html)
    assert "Unknown username or wrong password." in people.login(
        "ada", "not the password", client=app.test_client()
    ).get_data(as_text=True)


def test_an_empty_login_form_asks_in_italian(italian):
    page = italian.get("/login").get_data(as_text=True)
    response = italian.post("/login", data={"csrf_token": csrf_from(page), "method": "local"})
    html = response.get_data(as_text=True)
    assert "Inserisci il tuo nome utente." in html and "Inserisci la tua password." in html
    assert_no_english(html)


@pytest.mark.parametrize(
    ("seconds", "sentence"),
    [
        (60, "Troppi tentativi non riusciti. Aspetta 1 minuto prima di riprovare."),
        (120, "Troppi tentativi non riusciti. Aspetta 2 minuti prima di riprovare."),
    ],
)
def test_the_wait_after_too_many_attempts_is_counted_in_italian(make_app, seconds, sentence):
    app = make_app(LOGIN_THROTTLE_WINDOW_SECONDS=seconds)
    with app.test_request_context(), force_locale("it"):
        assert throttle._refusal("account:nobody", utcnow()).message == sentence
    with app.test_request_context():
        minutes = "1 minute " if seconds == 60 else "2 minutes "
        assert minutes in throttle._refusal("account:nobody", utcnow()).message


def test_the_welcome_and_the_account_page_speak_italian(italian, people):
    people.create("ada", display_name="Ada Lovelace")
    response = people.login("ada")
    html = italian.get(response.headers["Location"], follow_redirects=True).get_data(as_text=True)
    assert "Ti diamo il benvenuto, Ada Lovelace." in html
    html = italian.get("/account/").get_data(as_text=True)
    for sentence in (
        "Il tuo account",
        "un account locale",
        "Dove hai effettuato l'accesso",
        "Questo browser",
        "Cambia la tua password",
        "Almeno 12 caratteri.",
        "Token di accesso",
        "Nessun token di accesso.",
    ):
        assert sentence in html, sentence
    assert "<dd>utente</dd>" in html  # the role, in words
    assert_no_english(html)


def test_the_browser_of_each_session_is_described_in_the_readers_language(people, app):
    people.create("ada")
    firefox = app.test_client()
    firefox.environ_base["HTTP_USER_AGENT"] = FIREFOX
    people.login("ada", client=firefox)
    assert "Firefox on Linux" in firefox.get("/account/").get_data(as_text=True)
    firefox.environ_base["HTTP_ACCEPT_LANGUAGE"] = "it"
    html = firefox.get("/account/").get_data(as_text=True)
    assert "Firefox su Linux" in html and "Firefox on Linux" not in html


def test_a_password_change_says_so_in_italian(italian, people):
    people.create("ada")
    people.login("ada")
    response = change(italian)
    assert response.status_code == 302
    assert "Password cambiata." in italian.get("/account/").get_data(as_text=True)


@pytest.mark.parametrize(
    ("others", "sentence"),
    [
        (1, "Password cambiata; l&#39;altra tua sessione è stata chiusa."),
        (2, "Password cambiata; le altre 2 tue sessioni sono state chiuse."),
    ],
)
def test_the_sessions_a_password_change_ends_are_counted_in_italian(
    italian, people, app, others, sentence
):
    people.create("ada")
    people.login("ada")
    for _ in range(others):
        people.login("ada", client=app.test_client())
    change(italian)
    html = italian.get("/account/").get_data(as_text=True)
    assert sentence in html
    assert_no_english(html)


@pytest.mark.parametrize(
    ("form", "status", "sentence"),
    [
        ({"current": "not my password at all"}, 401, "Non è la tua password attuale."),
        ({"new": "short"}, 400, "Scegli una password di almeno 12 caratteri."),
        ({"new": " " * 14}, 400, "Scegli una nuova password."),
        ({"repeated": NEW + "!"}, 400, "Le due nuove password non coincidono"),
        ({"current": ""}, 400, "Inserisci la tua password attuale."),
    ],
)
def test_each_refused_password_change_is_explained_in_italian(
    italian, people, form, status, sentence
):
    people.create("ada")
    people.login("ada")
    response = change(italian, **form)
    assert response.status_code == status
    html = response.get_data(as_text=True)
    assert sentence in html
    assert_no_english(html)


@pytest.mark.parametrize(
    ("others", "sentence"), [(1, "Chiusa 1 altra sessione."), (2, "Chiuse 2 altre sessioni.")]
)
def test_ending_the_other_sessions_is_counted_in_italian(italian, people, app, others, sentence):
    people.create("ada")
    people.login("ada")
    for _ in range(others):
        people.login("ada", client=app.test_client())
    response = post_form(italian, "/account/", "/account/sessions/end-others", {})
    assert response.status_code == 302
    assert sentence in italian.get("/account/").get_data(as_text=True)


def test_ending_the_other_sessions_is_counted_in_english(people, client, app):
    people.create("ada")
    people.login("ada")
    for _ in range(2):
        people.login("ada", client=app.test_client())
    post_form(client, "/account/", "/account/sessions/end-others", {})
    assert "Ended 2 other sessions." in client.get("/account/").get_data(as_text=True)


def test_access_tokens_are_created_listed_and_revoked_in_italian(italian, people):
    people.create("ada")
    people.login("ada")
    refused = post_form(italian, "/account/", "/account/tokens", {"name": "", "days": "30"})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400
    assert "Dai un nome al token, per esempio quello dello script che lo usa." in html
    assert "Scegli almeno un ambito." in html
    assert_no_english(html)
    created = post_form(
        italian,
        "/account/",
        "/account/tokens",
        {"name": "backup", "scopes": ["deployments:read"], "days": "30"},
    )
    html = created.get_data(as_text=True)
    assert created.status_code == 201
    assert "Il tuo nuovo token viene mostrato solo ora" in html
    assert "deployments:read: vedere i tuoi deployment" in html
    assert "Inizia con" in html and "mai" in html and ">Revoca</button>" in html
    assert_no_english(html)
    token_id = re.search(r"/account/tokens/(\d+)/revoke", html).group(1)
    post_form(italian, "/account/", f"/account/tokens/{token_id}/revoke", {})
    html = italian.get("/account/").get_data(as_text=True)
    assert "Il token “backup” è stato revocato." in html
    assert_no_english(html)


def test_the_users_admin_pages_speak_italian(italian, people):
    people.create("ada")
    people.login_as("admin", username="root")
    html = italian.get("/admin/users/").get_data(as_text=True)
    assert "Cerca utenti" in html and "Ultimo accesso" in html and "amministratore" in html
    assert_no_english(html)
    assert "Nessun utente corrisponde a “nessuno”." in italian.get(
        "/admin/users/?q=nessuno"
    ).get_data(as_text=True)
    user_id = re.search(r'href="/admin/users/(\d+)">ada<', html).group(1)
    html = italian.get(f"/admin/users/{user_id}").get_data(as_text=True)
    for sentence in (
        "In nessun gruppo.",
        "Aggiungi gruppo",
        "Assegna operatore",
        "Sessioni attive",
    ):
        assert sentence in html, sentence
    assert "Questo account può accedere." in html
    assert_no_english(html)
    response = post_form(
        italian,
        f"/admin/users/{user_id}",
        f"/admin/users/{user_id}/roles",
        {"role": "operator", "action": "grant"},
    )
    html = italian.get(response.headers["Location"]).get_data(as_text=True)
    assert "ada ora ha il ruolo di operatore." in html and "Revoca operatore" in html
    assert_no_english(html)


def test_the_users_admin_pages_keep_their_english(people, client):
    people.create("ada")
    people.login_as("admin", username="root")
    html = client.get("/admin/users/").get_data(as_text=True)
    assert "Search users" in html and "Last login" in html and "admin, user" in html
