"""Catalogue curation: the list, creating, uploading, editing and previewing templates; no bad
input loses work or breaks a page.
"""

import io
import re

import pytest

from app.catalogue import operations
from app.catalogue.admin.forms import skeleton
from app.catalogue.models import CatalogueTemplate
from app.extensions import db
from tests.catalogue.admin_support import (
    ALIAS_BOMB,
    VM,
    VM_SIDECAR,
    page_text,
    row_of,
    save,
    states_in,
)
from tests.conftest import csrf_from, post_form

# --- The list ---------------------------------------------------------------------------------


def test_the_list_shows_each_template_with_its_state_and_who_changed_it_last(app, client, admin):
    save(app, "live", create=True, publish=True)
    save(app, "pending", create=True, publish=True)
    save(app, "pending", VM.replace("default: 2", "default: 4"))
    save(app, "dark", create=True, publish=True)
    with app.app_context():
        operations.hide("dark", "someone-else")
    save(app, "broken", "tosca_definitions_version: [\n", "", create=True)
    save(app, "draft", create=True)

    html = page_text(client, "/admin/catalogue/")

    assert states_in(row_of(html, "live")) == ["published"]
    assert states_in(row_of(html, "pending")) == ["published", "changes"]
    assert states_in(row_of(html, "dark")) == ["hidden"]
    assert states_in(row_of(html, "broken")) == ["broken"]
    assert states_in(row_of(html, "draft")) == ["draft"]
    assert "someone-else" in row_of(html, "dark")
    assert "UTC" in row_of(html, "dark")
    assert "Virtual machine" in row_of(html, "live")


def test_the_list_filters_by_state_and_counts_each_state(app, client, admin):
    save(app, "live", create=True, publish=True)
    save(app, "broken", "not: [closed\n", "", create=True)

    html = page_text(client, "/admin/catalogue/?state=broken")

    assert 'data-slug="broken"' in html
    assert 'data-slug="live"' not in html
    assert re.search(r"Broken <span[^>]*>1</span>", html)
    assert re.search(r"Published <span[^>]*>1</span>", html)


def test_an_unknown_state_filter_shows_every_template(app, client, admin):
    save(app, "live", create=True, publish=True)
    assert 'data-slug="live"' in page_text(client, "/admin/catalogue/?state=<b>")


def test_an_empty_catalogue_says_how_to_fill_it(client, admin):
    assert "flask catalogue import" in page_text(client, "/admin/catalogue/")


# --- Creating ---------------------------------------------------------------------------------


def test_an_admin_creates_a_valid_template_from_the_skeleton(app, client, admin):
    response = post_form(
        client, "/admin/catalogue/new", "/admin/catalogue/new/blank", {"slug": "my-app"}
    )

    assert response.status_code == 302
    assert response.headers["Location"].endswith("/admin/catalogue/my-app/edit")
    with app.app_context():
        template = operations.get_template("my-app")
        revision = template.revisions[0]
        assert revision.valid, revision.parsed
        assert revision.author == "curator"
        assert (revision.tosca_text, revision.sidecar_text) == skeleton("my-app")
        assert template.published_revision_id is None
    editor = page_text(client, "/admin/catalogue/my-app/edit")
    assert 'class="form-control yaml-editor"' in editor
    assert "get_input: num_cpus" in editor


@pytest.mark.parametrize(
    ("slug", "message"),
    [
        ("Not a slug!", "lowercase letters, digits and dashes"),
        ("-leading-dash", "lowercase letters, digits and dashes"),
        ("taken", "exists already"),
    ],
)
def test_a_bad_or_taken_slug_is_refused_beside_the_field(app, client, admin, slug, message):
    save(app, "taken", create=True)

    response = post_form(
        client, "/admin/catalogue/new", "/admin/catalogue/new/blank", {"slug": slug}
    )

    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in html
    assert "is-invalid" in html
    with app.app_context():
        assert db.session.query(CatalogueTemplate).count() == 1


def test_an_admin_uploads_a_template_with_its_sidecar(app, client, admin):
    page = client.get("/admin/catalogue/new")
    response = client.post(
        "/admin/catalogue/new/upload",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "slug": "uploaded-vm",
            "tosca_file": (io.BytesIO(VM.encode()), "vm.yaml"),
            "sidecar_file": (
                io.BytesIO(VM_SIDECAR.replace("\n", "\r\n").encode()),
                "vm.portal.yaml",
            ),
            "message": "First upload",
        },
        content_type="multipart/form-data",
    )

    assert response.status_code == 302
    assert "/admin/catalogue/uploaded-vm/revisions/1/preview" in response.headers["Location"]
    with app.app_context():
        revision = operations.get_template("uploaded-vm").revisions[0]
        assert revision.valid
        assert revision.message == "First upload"
        assert revision.sidecar_text == VM_SIDECAR  # line endings normalised


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a: b\n" * 30_000, "larger than the limit"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("description: caf\u00e9\n".encode("latin-1"), "not UTF-8 text"),
    ],
    ids=["too-big", "binary", "latin-1"],
)
def test_an_upload_that_is_too_big_binary_or_not_utf8_is_refused_with_a_message(
    make_app, people, content, message
):
    app = make_app(TEMPLATE_MAX_BYTES=100_000)
    client = app.test_client()
    people.app, people.client = app, client
    people.login_as("admin")
    page = client.get("/admin/catalogue/new")

    response = client.post(
        "/admin/catalogue/new/upload",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "slug": "upload",
            "tosca_file": (io.BytesIO(content), "template.yaml"),
        },
        content_type="multipart/form-data",
    )

    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert 'value="upload"' in response.get_data(as_text=True)  # the slug is kept
    with app.app_context():
        assert db.session.query(CatalogueTemplate).count() == 0


def test_an_upload_without_a_file_asks_for_one(client, admin):
    response = post_form(
        client, "/admin/catalogue/new", "/admin/catalogue/new/upload", {"slug": "x"}
    )
    assert response.status_code == 400
    assert "Choose a file." in response.get_data(as_text=True)


def test_an_alias_bomb_is_stored_as_an_invalid_revision_and_breaks_no_page(
    app, client, people, admin
):
    page = client.get("/admin/catalogue/new")
    response = client.post(
        "/admin/catalogue/new/upload",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "slug": "bomb",
            "tosca_file": (io.BytesIO(ALIAS_BOMB.encode()), "bomb.yaml"),
        },
        content_type="multipart/form-data",
    )

    assert response.status_code == 302
    with app.app_context():
        revision = operations.get_template("bomb").revisions[0]
        assert not revision.valid
    assert states_in(row_of(page_text(client, "/admin/catalogue/"), "bomb")) == ["broken"]
    editor = page_text(client, "/admin/catalogue/bomb/edit")
    assert "aliases expand to too much data" in editor
    preview = page_text(client, "/admin/catalogue/bomb/revisions/1/preview")
    assert "aliases expand to too much data" in preview  # the summary box says why, no 500
    assert "This template has no inputs to show." in preview
    researcher = app.test_client()
    people.create("reader")
    people.login("reader", client=researcher)
    cards = researcher.get("/catalogue/").get_data(as_text=True)
    assert 'href="/catalogue/bomb/"' not in cards  # never published, never offered
    assert researcher.get("/catalogue/bomb/").status_code == 404


# --- Editing ----------------------------------------------------------------------------------


def test_malformed_yaml_is_kept_in_the_editor_with_the_error_at_its_line(app, client, admin):
    save(app, "vm", create=True, publish=True)
    broken = VM.replace("    num_cpus:\n", "    num_cpus: [\n", 1)
    bad_line = broken.splitlines().index("    num_cpus: [") + 1

    response = post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": broken, "sidecar_text": VM_SIDECAR, "message": "Oops", "base": "1"},
    )

    assert response.status_code == 302
    html = page_text(client, response.headers["Location"])
    assert "num_cpus: [" in html  # the editor holds the admin's text
    problem = re.search(r'href="#template-L(\d+)">Template, line \1</a>', html)
    assert problem, "the problem links to its line"
    assert abs(int(problem.group(1)) - bad_line) <= 2
    assert f'class="code-line line-error" id="template-L{problem.group(1)}"' in html
    with app.app_context():
        template = operations.get_template("vm")
        assert [r.valid for r in template.revisions] == [True, False]
        assert template.published_revision.number == 1  # users keep the working revision


def test_a_sidecar_problem_is_shown_at_its_line_in_the_sidecar(app, client, admin):
    save(app, "vm", create=True)
    sidecar = VM_SIDECAR + "inputs_typo: [\n"
    response = post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": VM, "sidecar_text": sidecar},
    )

    html = page_text(client, response.headers["Location"])
    assert re.search(r'href="#sidecar-L(\d+)">Metadata, line \1</a>', html)
    assert 'class="code-line line-error" id="sidecar-L' in html


def test_an_edit_the_form_refuses_keeps_every_field_as_typed(make_app, people):
    app = make_app(TEMPLATE_MAX_BYTES=20_000)
    client = app.test_client()
    people.app, people.client = app, client
    people.login_as("admin")
    save(app, "vm", create=True)
    sidecar = "name: Kept <b>as typed</b>\n"

    response = post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": "x: 1\n" * 5000, "sidecar_text": sidecar, "message": "Too big"},
    )

    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "the limit is 20,000 bytes" in html
    assert "name: Kept &lt;b&gt;as typed&lt;/b&gt;" in html
    assert 'value="Too big"' in html
    with app.app_context():
        assert len(operations.get_template("vm").revisions) == 1


def test_an_empty_template_is_refused_and_nothing_is_saved(app, client, admin):
    save(app, "vm", create=True)
    response = post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": "", "sidecar_text": VM_SIDECAR},
    )
    assert response.status_code == 400
    assert "The template can&#39;t be empty." in response.get_data(as_text=True)


def test_a_valid_save_leads_to_the_preview_and_says_so(app, client, admin):
    save(app, "vm", create=True)
    response = post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": VM, "sidecar_text": VM_SIDECAR.replace("Virtual machine", "My VM", 1)},
    )
    assert response.headers["Location"].endswith("/admin/catalogue/vm/revisions/2/preview")
    assert "Saved revision 2" in page_text(client, response.headers["Location"])


def test_saving_over_someone_elses_newer_revision_keeps_both_and_says_so(app, client, admin):
    save(app, "vm", create=True)
    editor = page_text(client, "/admin/catalogue/vm/edit")
    save(app, "vm", VM.replace("default: 2", "default: 4"), message="Meanwhile")

    client.post(
        "/admin/catalogue/vm/edit",
        data={"csrf_token": csrf_from(editor), "base": "1", "tosca_text": VM, "sidecar_text": ""},
    )

    assert "while you were editing" in page_text(client, "/admin/catalogue/vm/")
    with app.app_context():
        assert len(operations.get_template("vm").revisions) == 3


# --- Preview, publish, hide, visibility -------------------------------------------------------


def test_the_preview_shows_the_generated_form_read_only_with_tabs_presets_and_resources(
    app, client, admin
):
    save(app, "vm", create=True)

    html = page_text(client, "/admin/catalogue/vm/revisions/1/preview")

    assert "Virtual machine" in html
    for tab in ("Basic", "Advanced"):
        assert f">\n      {tab}" in html or f">{tab}" in html
    assert "Small" in html and "Medium" in html  # presets
    assert "What will be requested" in html
    assert 'name="num_cpus"' in html
    assert re.search(
        r'<select[^>]*name="num_cpus"[^>]*disabled|<select[^>]*disabled[^>]*name="num_cpus"', html
    )
    assert "/catalogue/vm/" not in re.findall(r'<form[^>]*action="([^"]+)"', html)
    assert "Publish revision 1" in html
