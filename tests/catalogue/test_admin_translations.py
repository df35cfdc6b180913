"""Admins write a template's Italian words in the metadata editor, keep them through every save,
see them in the preview with what is still missing, and read a bad block's problems in words."""

import re
from html import unescape

from app.catalogue import operations
from app.catalogue.admin.forms import skeleton
from app.catalogue.loader import catalogue
from app.tosca.parsed import ParsedTemplate
from tests.catalogue.admin_support import VM, VM_SIDECAR, page_text, save
from tests.conftest import post_form

ENGLISH_ONLY = VM_SIDECAR.split("translations:")[0]
ITALIAN = (
    "translations:\n"
    "  it:\n"
    "    name: Macchina su misura\n"
    "    inputs:\n"
    "      num_cpus: {label: Core, help: Quanti core avrà la macchina.}\n"
    "    presets:\n"
    "      Small: {name: Piccola}\n"
)


def _edit(client, sidecar, tosca=VM):
    return post_form(
        client,
        "/admin/catalogue/vm/edit",
        "/admin/catalogue/vm/edit",
        {"tosca_text": tosca, "sidecar_text": sidecar, "message": "Italian words"},
    )


def test_an_admin_saves_italian_words_and_they_are_kept_as_typed(app, client, admin):
    save(app, "vm", sidecar=ENGLISH_ONLY, create=True)

    response = _edit(client, ENGLISH_ONLY + ITALIAN)

    assert response.status_code == 302
    with app.app_context():
        revision = operations.get_template("vm").revisions[-1]
        assert revision.valid, revision.parsed
        assert revision.sidecar_text.endswith(ITALIAN)
        stored = ParsedTemplate.from_json(revision.parsed)
        assert stored.translations["it"]["name"] == "Macchina su misura"
        assert stored.localised("it").input("num_cpus").label == "Core"
    editor = unescape(page_text(client, "/admin/catalogue/vm/edit"))
    assert ITALIAN in editor
    assert "translations:" in editor and "one block per language code" in editor


def test_setting_visible_groups_keeps_the_italian_words(app, client, admin):
    save(app, "vm", sidecar=ENGLISH_ONLY + ITALIAN, create=True, publish=True)

    post_form(
        client, "/admin/catalogue/vm/", "/admin/catalogue/vm/visibility", {"groups": "physics"}
    )

    with app.app_context():
        revision = operations.get_template("vm").revisions[-1]
        assert ParsedTemplate.from_json(revision.parsed).visible_to == ["physics"]
        assert revision.sidecar_text.rstrip().endswith(ITALIAN.rstrip())
        with app.test_request_context(headers={"Accept-Language": "it"}):
            assert catalogue().get("vm").parsed.name == "Macchina su misura"


def test_the_preview_shows_each_language_and_the_words_italian_still_lacks(app, client, admin):
    number = save(app, "vm", sidecar=ENGLISH_ONLY + ITALIAN, create=True)
    url = f"/admin/catalogue/vm/revisions/{number}/preview"

    italian = unescape(page_text(client, f"{url}?language=it"))
    english = unescape(page_text(client, f"{url}?language=en"))

    assert "Macchina su misura" in italian and "Quanti core avrà la macchina." in italian
    assert "Piccola" in italian and "Base" not in italian  # Basic has no Italian name yet
    missing = re.search(
        r'class="[^"]*missing-words[^"]*".*?font-monospace">(.*?)</p>', italian, re.S
    )
    assert missing, "the preview lists no missing words"
    assert "description" in missing.group(1).split(", ")
    assert "tabs.Basic" in missing.group(1) and "inputs.num_cpus.label" not in missing.group(1)
    assert "Virtual machine" in english and "Macchina su misura" not in english
    assert "missing-words" not in english
    assert 'hreflang="it"' in english


def test_a_bad_translations_block_is_shown_in_words_at_its_line_in_the_editor(app, client, admin):
    save(app, "vm", sidecar=ENGLISH_ONLY, create=True)
    bad = ENGLISH_ONLY + "translations:\n  it:\n    inputs:\n      num_gpus: {label: GPU}\n"

    response = _edit(client, bad)

    html = unescape(page_text(client, response.headers["Location"]))
    message = 'Translations "it" names the input "num_gpus", which the template does not have.'
    assert message in html
    line = ENGLISH_ONLY.count("\n") + 4
    assert f'href="#sidecar-L{line}">Metadata, line {line}</a>' in html
    with app.app_context():
        assert not operations.get_template("vm").revisions[-1].valid


def test_a_new_template_starts_with_an_italian_block_that_is_valid(app, client, admin):
    post_form(client, "/admin/catalogue/new", "/admin/catalogue/new/blank", {"slug": "my-app"})
    with app.app_context():
        revision = operations.get_template("my-app").revisions[0]
        assert revision.sidecar_text == skeleton("my-app")[1]
        assert revision.valid, revision.parsed
        words = ParsedTemplate.from_json(revision.parsed).translations["it"]
        assert words["inputs"]["num_cpus"]["label"] == "Core"
