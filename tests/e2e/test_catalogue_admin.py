"""An admin curates the catalogue in a real browser: create, break, fix, preview, publish, hide,
compare and restore, while a researcher sees the result in the catalogue."""

from pathlib import Path

from playwright.sync_api import expect

from app.catalogue import operations
from app.catalogue.admin.forms import skeleton
from tests.e2e.conftest import log_in

CATALOGUE = Path(__file__).parents[2] / "tosca-catalog"
PASSWORD = "correct horse battery"

# The skeleton grown by a second input, with tabs and presets in its sidecar.
MEMORY_INPUT = """\
    mem_size:
      type: scalar-unit.size
      description: Amount of memory of the machine
      default: 4 GB
      constraints:
        - valid_values: [ 4 GB, 8 GB, 16 GB ]

  node_templates:
"""
SIDECAR_EXTRA = """\
tabs:
  - name: Basic
    inputs: [num_cpus]
  - name: Advanced
    inputs: [mem_size]
presets:
  - name: Small
    description: 2 cores, 4 GB memory
    values: {num_cpus: 2, mem_size: 4 GB}
  - name: Large
    description: 8 cores, 16 GB memory
    values: {num_cpus: 8, mem_size: 16 GB}
"""


def grown_skeleton(slug: str) -> tuple[str, str]:
    tosca, sidecar = skeleton(slug)
    tosca = tosca.replace("\n  node_templates:\n", "\n" + MEMORY_INPUT, 1)
    tosca = tosca.replace("mem_size: 4 GB", "mem_size: { get_input: mem_size }", 1)
    sidecar = sidecar.replace("description: >-\n  What", "description: >-\n  A test machine. What")
    return tosca, sidecar + SIDECAR_EXTRA


def test_an_admin_creates_breaks_fixes_publishes_hides_compares_and_restores_a_template(
    app, people, live_server, page, browser, shot
):
    people.create("root", PASSWORD, roles=("admin",), display_name="Catalogue Admin")
    people.create("ada", PASSWORD, display_name="Ada Lovelace")
    with app.app_context():
        operations.import_folder(CATALOGUE, author="import")
        operations.save_revision("jupyter-vm", "tosca_definitions_version: [\n", "", "root", "WIP")
        operations.hide("mesos-cluster", "root")
    base = live_server.url + "/admin/catalogue"
    page.on("dialog", lambda dialog: dialog.accept())

    # Create from the skeleton.
    log_in(page, live_server.url, "root", PASSWORD)
    page.goto(base + "/")
    page.get_by_role("link", name="New template").first.click()
    page.locator("#upload-title").wait_for()
    blank = page.locator("form", has=page.get_by_role("button", name="Create from skeleton"))
    blank.get_by_label("Slug").fill("demo-vm")
    blank.get_by_role("button", name="Create from skeleton").click()
    expect(page.get_by_text("Created demo-vm from the skeleton.")).to_be_visible()

    page.goto(base + "/")
    row = page.locator('tr[data-slug="demo-vm"]')
    expect(row.get_by_text("Not published yet")).to_be_visible()
    expect(
        page.locator('tr[data-slug="jupyter-vm"]').get_by_text("Unpublished changes")
    ).to_be_visible()
    expect(page.locator('tr[data-slug="mesos-cluster"]').get_by_text("Hidden")).to_be_visible()
    shot("admin-list")

    # Break it: the error is listed with its line, and the line is marked.
    row.get_by_role("link", name="Edit").click()
    editor = page.locator("#tosca_text")
    good = editor.input_value()
    editor.fill(good.replace("default: 2", "default: [2", 1))
    page.get_by_label("What changed").fill("Try a list")
    page.get_by_role("button", name="Save revision").click()
    expect(page.get_by_text("Saved as revision 2, but it has problems")).to_be_visible()
    problem = page.locator(".problem-where").first
    expect(problem).to_contain_text("Template, line")
    expect(editor).to_have_value(good.replace("default: 2", "default: [2", 1))
    page.get_by_role("button", name="show in editor").click()
    expect(editor).to_be_focused()
    assert page.evaluate("document.getElementById('tosca_text').selectionStart") > 0
    problem.click()
    expect(page.locator(".code-line.line-error").first).to_be_in_viewport()
    page.evaluate("window.scrollTo(0, 0)")
    shot("admin-edit-error")

    # Fix it, with a second input, tabs and presets; the valid save leads to the preview.
    tosca, sidecar = grown_skeleton("demo-vm")
    editor.fill(tosca)
    page.locator("#sidecar_text").fill(sidecar)
    page.get_by_label("What changed").fill("Add memory, tabs and presets")
    page.get_by_role("button", name="Save revision").click()
    expect(page.get_by_text("Saved revision 3.")).to_be_visible()
    expect(page.get_by_role("button", name="Large")).to_be_disabled()
    expect(page.get_by_text("What will be requested")).to_be_visible()
    page.wait_for_load_state()  # the tabs work once Bootstrap's script has run
    page.get_by_role("tab", name="Advanced").click()
    expect(page.locator('select[name="mem_size"]')).to_be_visible()
    page.get_by_role("tab", name="Basic").click()
    shot("admin-preview")

    # Publish; a researcher sees it in the catalogue.
    page.get_by_role("button", name="Publish revision 3").click()
    expect(page.get_by_text("Published revision 3: users see it now.")).to_be_visible()
    researcher = browser.new_context().new_page()
    log_in(researcher, live_server.url, "ada", PASSWORD)
    researcher.goto(live_server.url + "/catalogue/")
    expect(researcher.get_by_text("Demo vm").first).to_be_visible()

    # Hide it; the researcher no longer sees it.
    page.get_by_role("button", name="Hide").click()
    expect(page.get_by_text("demo-vm is hidden from the catalogue.")).to_be_visible()
    researcher.reload()
    expect(researcher.get_by_text("Demo vm")).to_have_count(0)
    researcher.context.close()

    # Compare the skeleton with the fixed revision.
    page.get_by_role("link", name="Compare").click()
    page.get_by_label("From revision").select_option("1")
    page.get_by_label("To revision").select_option("3")
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_text("From revision 1 to revision 3")).to_be_visible()
    expect(page.locator(".diff .add", has_text="mem_size:").first).to_be_visible()
    shot("admin-diff")

    # Restore the skeleton as revision 4.
    page.get_by_role("link", name="Overview & history").click()
    page.locator('tr[data-revision="1"]').get_by_role("button", name="Restore").click()
    expect(page.get_by_text("Restored revision 1 as revision 4")).to_be_visible()
    expect(page.locator('tr[data-revision="4"]')).to_contain_text("Restored revision 1")
    shot("admin-revisions")
    with app.app_context():
        latest = operations.latest_revision(operations.get_template("demo-vm"))
        assert (latest.number, latest.tosca_text) == (4, skeleton("demo-vm")[0])


def test_the_admin_list_reads_well_on_a_phone(app, people, live_server, browser, shot):
    people.create("root", PASSWORD, roles=("admin",))
    with app.app_context():
        operations.import_folder(CATALOGUE, author="import")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "root", PASSWORD)
    phone.goto(live_server.url + "/admin/catalogue/vm/")
    expect(phone.get_by_role("heading", name="Revisions")).to_be_visible()
    shot("admin-detail-phone", target=phone)
    context.close()


def test_an_admin_registers_a_type_library_from_an_archive(
    app, people, live_server, page, browser, shot, tmp_path
):
    import tarfile

    corpus = Path(__file__).parents[1] / "catalogue" / "corpus"
    archive = tmp_path / "acme-types.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(corpus / "site-types", arcname="site-types")
    people.create("root", PASSWORD, roles=("admin",))
    with app.app_context():
        operations.import_folder(corpus / "site-catalogue", author="import")
    log_in(page, live_server.url, "root", PASSWORD)
    page.goto(live_server.url + "/admin/catalogue/")
    page.get_by_role("link", name="Type libraries").click()
    expect(page.locator(".unresolved-imports")).to_contain_text("private-net-single-vm")

    page.get_by_label("Name", exact=True).fill("acme-types")
    page.get_by_label("URL patterns").fill(
        "https://git.acme.example/infra/tosca-types/raw/{ref}/{path}"
    )
    page.get_by_label("Folder as an archive (.zip or .tar.gz)").set_input_files(str(archive))
    page.get_by_role("button", name="Store and re-validate").click()
    expect(page.get_by_text("Stored type library acme-types (5 files).")).to_be_visible()
    card = page.locator('[data-library="acme-types"]')
    expect(card.locator(".library-users")).to_contain_text("private-net-single-vm")
    expect(page.locator(".unresolved-imports")).not_to_contain_text("private-net-single-vm")
    shot("admin-type-libraries")

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "root", PASSWORD)
    phone.goto(live_server.url + "/admin/catalogue/libraries/")
    expect(phone.get_by_role("heading", name="Type libraries")).to_be_visible()
    shot("admin-type-libraries-phone", target=phone)
    phone.goto(live_server.url + "/admin/catalogue/private-net-single-vm/edit")
    expect(phone.locator(".problem-message").filter(has_text="(list-index)")).to_be_visible()
    shot("admin-leniency-warnings-phone", target=phone)
    context.close()


def test_an_admin_writes_the_italian_words_and_sees_them_in_the_preview(
    app, people, live_server, page, browser, shot
):
    people.create("root", PASSWORD, roles=("admin",))
    people.create("ada", PASSWORD)
    with app.app_context():
        operations.import_folder(CATALOGUE, author="import")
    log_in(page, live_server.url, "root", PASSWORD)
    page.goto(live_server.url + "/admin/catalogue/vm/edit")
    expect(page.locator(".sidecar-translations-help")).to_contain_text("translations:")

    # Rename it in Italian in the metadata's translations block; Enter saves the revision.
    sidecar = page.locator("#sidecar_text")
    text = sidecar.input_value().replace("name: Macchina virtuale", "name: La mia macchina", 1)
    sidecar.fill(text)
    page.get_by_label("What changed").fill("Nome italiano")
    page.get_by_label("What changed").press("Enter")
    expect(page.get_by_text("Saved revision 2.")).to_be_visible()

    page.get_by_role("link", name="Italiano").click()
    expect(page.get_by_role("heading", name="La mia macchina")).to_be_visible()
    expect(page.get_by_role("button", name="Piccola")).to_be_disabled()
    expect(page.locator(".missing-words")).to_have_count(0)
    shot("admin-preview-italian")
    page.get_by_role("link", name="English").click()
    expect(page.get_by_role("heading", name="Virtual machine", exact=True)).to_be_visible()

    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    log_in(phone, live_server.url, "root", PASSWORD)
    phone.goto(live_server.url + "/admin/catalogue/vm/revisions/2/preview?language=it")
    expect(phone.get_by_role("heading", name="La mia macchina")).to_be_visible()
    shot("admin-preview-italian-phone", target=phone)
    context.close()

    # Published, an Italian researcher's catalogue shows the new name.
    page.get_by_role("button", name="Publish revision 2").click()
    italian = browser.new_context(locale="it-IT").new_page()
    log_in(italian, live_server.url, "ada", PASSWORD)
    italian.goto(live_server.url + "/catalogue/")
    expect(italian.get_by_role("link", name="La mia macchina")).to_be_visible()
    shot("catalogue-italian", target=italian)
    italian.context.close()
