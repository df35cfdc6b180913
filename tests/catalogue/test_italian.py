"""The catalogue and its editor in Italian: pages, refusals, flashes and the stored judgments
about templates, each shown in the language of the person reading it; English unchanged."""

import io

import pytest
from flask_babel import force_locale

from app.catalogue import operations
from app.tosca.parsed import parse_template
from tests.catalogue.admin_support import VM, VM_SIDECAR, page_text, save
from tests.conftest import csrf_from

IT = {"Accept-Language": "it"}
EN = {"Accept-Language": "en"}
# A get_input of an input the template does not define: an error stored with the revision.
BROKEN = VM.replace("get_input: num_cpus", "get_input: cores")


def text(client, url, headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def test_the_catalogue_page_speaks_the_readers_language(app, client, login_as):
    login_as("user")
    italian, english = text(client, "/catalogue/", IT), text(client, "/catalogue/", EN)
    assert "Cerca nel catalogo" in italian and "Search the catalogue" not in italian
    assert "Search the catalogue" in english and "Cerca nel catalogo" not in english


def test_the_admin_pages_speak_the_readers_language(app, client, admin):
    save(app, "vm", create=True, publish=True)
    for url, italian_words, english_words in [
        ("/admin/catalogue/", "Template del catalogo", "Catalogue templates"),
        ("/admin/catalogue/new", "Parti da uno scheletro", "Start from a skeleton"),
        ("/admin/catalogue/vm/", "Chi lo vede", "Who sees it"),
        ("/admin/catalogue/vm/edit", "Salva la revisione", "Save revision"),
        ("/admin/catalogue/libraries/", "Librerie di tipi", "Type libraries"),
    ]:
        italian, english = text(client, url, IT), text(client, url, EN)
        assert italian_words in italian and english_words not in italian, url
        assert english_words in english and italian_words not in english, url


def test_an_upload_refused_says_why_in_italian(client, admin):
    def upload(headers):
        page = client.get("/admin/catalogue/new", headers=headers)
        return client.post(
            "/admin/catalogue/new/upload",
            data={
                "csrf_token": csrf_from(page.get_data(as_text=True)),
                "slug": "png",
                "tosca_file": (io.BytesIO(b"\x89PNG\r\n\x1a\n\x00\x00"), "logo.png"),
            },
            content_type="multipart/form-data",
            headers=headers,
        )

    italian = upload(IT)
    assert italian.status_code == 400
    assert "logo.png è un file binario, non un file di testo YAML." in italian.get_data(True)
    english = upload(EN)
    assert "logo.png is a binary file, not a YAML text file." in english.get_data(True)


def test_a_publish_flash_speaks_the_readers_language(app, client, admin):
    save(app, "vm", create=True)
    for headers, words in [
        (IT, "Revisione 1 pubblicata: gli utenti la vedono da ora."),
        (EN, "Published revision 1: users see it now."),
    ]:
        page = client.get("/admin/catalogue/vm/", headers=headers)
        client.post(
            "/admin/catalogue/vm/publish",
            data={"csrf_token": csrf_from(page.get_data(as_text=True)), "number": "1"},
            headers=headers,
        )
        assert words in text(client, "/admin/catalogue/vm/", headers)


def test_a_stored_judgment_is_shown_in_each_admins_language(app, client, admin):
    # Saved during an Italian request: what is stored stays English and translatable.
    with app.test_request_context(headers=IT), force_locale("it"):
        operations.save_revision("broken", BROKEN, VM_SIDECAR, "curator", create=True)
        stored = operations.get_template("broken").revisions[0].parsed
    assert "get_input: cores names an input the template does not define" in stored

    url = "/admin/catalogue/broken/revisions/1"
    italian, english = text(client, url, IT), text(client, url, EN)
    assert "get_input: cores indica un input che il template non definisce" in italian
    assert "names an input the template does not define" not in italian
    assert "get_input: cores names an input the template does not define" in english
    assert "La revisione 1 ha 1 problema" in italian
    assert "Revision 1 has 1 problem" in english


def test_a_stored_warning_nests_translated_words(app):
    parsed = parse_template("lenient", VM.replace("default: 2", "default: 2\n      default: 4"))
    warning = next(w for w in parsed.warnings if w.code == "duplicate-key")
    assert warning.message.startswith("A key given twice in one mapping (duplicate-key): The key")
    with app.test_request_context(), force_locale("it"):
        assert warning.shown.startswith(
            "Una chiave ripetuta nella stessa mappa (duplicate-key): La chiave"
        )
        assert "Accettato: Il lettore YAML dell'orchestratore" in warning.shown


@pytest.mark.parametrize(
    ("count", "italian", "english"),
    [
        (1, "La revisione 1 ha 1 problema", "Revision 1 has 1 problem"),
        (2, "La revisione 1 ha 2 problemi", "Revision 1 has 2 problems"),
    ],
)
def test_problem_counts_use_plural_forms(app, client, admin, count, italian, english):
    broken = BROKEN if count == 1 else BROKEN.replace("image: ", "image: {get_input: nope}\n#")
    save(app, "counted", broken, VM_SIDECAR, create=True)
    url = "/admin/catalogue/counted/revisions/1"
    assert italian in text(client, url, IT)
    assert english in text(client, url, EN)


def test_a_revalidation_flash_counts_in_italian(app, client, admin):
    save(app, "vm", create=True)
    page = client.get("/admin/catalogue/libraries/", headers=IT)
    client.post(
        "/admin/catalogue/libraries/revalidate",
        data={"csrf_token": csrf_from(page.get_data(as_text=True))},
        headers=IT,
    )
    assert "1 revisione convalidata di nuovo." in text(client, "/admin/catalogue/libraries/", IT)


def test_english_pages_are_unchanged(app, client, admin):
    save(app, "vm", create=True, publish=True)
    assert "Catalogue templates" in page_text(client, "/admin/catalogue/")


def test_the_portals_own_revision_messages_are_shown_in_each_admins_language(app, client, admin):
    save(app, "vm", create=True, publish=True)
    save(app, "vm", VM.replace("default: 2", "default: 4"), message="Più core")
    with app.app_context():
        operations.restore("vm", 1, "curator")
        stored = [r.message for r in operations.get_template("vm").revisions]
    assert stored == ["Created", "Più core", "Restored revision 1"]

    italian, english = (
        text(client, "/admin/catalogue/vm/", IT),
        text(client, "/admin/catalogue/vm/", EN),
    )
    assert "Ripristinata la revisione 1" in italian and "Creato" in italian
    assert "Più core" in italian and "Più core" in english  # an admin's own words, as typed
    assert "Restored revision 1" in english and "Ripristinata" not in english


def test_an_empty_catalogue_links_admins_to_their_area_in_italian(client, admin):
    italian = text(client, "/catalogue/", IT)
    assert (
        'Aggiungi un template nell\'<a href="/admin/catalogue/">area di amministrazione</a>.'
        in (italian.replace("&#39;", "'"))
    )
    english = text(client, "/catalogue/", EN)
    assert 'Add a template in the <a href="/admin/catalogue/">admin area</a>.' in english


def test_who_made_a_change_from_the_command_line_or_the_import_is_worded_in_the_readers_language(
    app, client, admin
):
    from app import actors

    with app.app_context():
        operations.save_revision("vm", VM, VM_SIDECAR, actors.FOLDER_IMPORT, create=True)
        operations.publish("vm", actors.COMMAND_LINE)
    italian = text(client, "/admin/catalogue/vm/", IT)
    english = text(client, "/admin/catalogue/vm/", EN)
    assert "importazione del catalogo" in italian and "riga di comando" in italian
    assert "catalogue import" in english and "command line" in english
    for page in (italian, english):
        assert actors.FOLDER_IMPORT not in page and actors.COMMAND_LINE not in page
    listing = text(client, "/admin/catalogue/", IT)
    assert "riga di comando" in listing and actors.COMMAND_LINE not in listing
