"""Importing a site's folder as it is, and type libraries from the command line.

The folder is tests/catalogue/corpus/site-catalogue (see the corpus README); its types library
is registered with ``flask catalogue types add``.
"""

import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from app.catalogue import operations
from app.catalogue.folders import slug_for
from app.catalogue.models import CatalogueTemplate
from app.extensions import db
from app.tosca.parsed import ParsedTemplate

CORPUS = Path(__file__).parent / "corpus"
ACME_URL = "https://git.acme.example/infra/tosca-types/raw/{ref}/{path}"


def run(app, *args):
    return app.test_cli_runner().invoke(args=["catalogue", *args])


@pytest.fixture
def site(tmp_path):
    target = tmp_path / "site-catalogue"
    shutil.copytree(CORPUS / "site-catalogue", target)
    return target


@pytest.fixture
def with_acme(app):
    result = run(app, "types", "add", "acme-types", str(CORPUS / "site-types"), "--url", ACME_URL)
    assert result.exit_code == 0, result.output
    return result


def outcomes(output: str) -> dict[str, str]:
    """``path -> slug: outcome`` lines as {path: "slug: outcome"}."""
    return dict(line.split(" -> ", 1) for line in output.splitlines() if " -> " in line)


def template(app, slug):
    with app.app_context():
        found = db.session.scalar(select(CatalogueTemplate).where(CatalogueTemplate.slug == slug))
        return found, ParsedTemplate.from_json(found.revisions[-1].parsed)


@pytest.mark.parametrize(
    "path, slug",
    [
        ("private-net/single_vm.yaml", "private-net-single-vm"),
        ("vm.yaml", "vm"),
        ("Apps/IAM__client.yml", "apps-iam-client"),
    ],
)
def test_slugs_come_from_paths(path, slug):
    assert slug_for(path) == slug


def test_a_site_folder_imports_in_one_command_with_a_line_per_file(app, site, with_acme):
    result = run(app, "import", str(site))
    assert result.exit_code == 0, result.output
    lines = outcomes(result.output)
    assert lines["private-net/single_vm.yaml"].startswith("private-net-single-vm: imported")
    assert lines["public-net/single_vm.yaml"].startswith("public-net-single-vm: imported")
    assert lines["apps/iam_client.yaml"].startswith("apps-iam-client: imported")
    assert lines["unknown_types.yaml"].startswith("unknown-types: imported")
    assert lines["broken/undefined_input.yaml"].startswith(
        "broken-undefined-input: invalid: revision 1 not published: template, line 19: "
        "get_input: memory_size"
    )
    assert lines["acme_types.yaml"] == (
        "acme-types: skipped: type definitions, not a template: register its folder as a "
        "type library (flask catalogue types add)"
    )
    assert lines["settings.yaml"].startswith("settings: skipped: not a TOSCA template")
    private, parsed = template(app, "private-net-single-vm")
    assert private.source == "private-net/single_vm.yaml" and private.published_revision_id
    assert parsed.libraries == ["acme-types"]
    assert {w.code for w in parsed.warnings} >= {"list-index", "deploy-time-property"}


def test_an_unreadable_file_fails_the_run_but_not_the_other_files(app, site):
    (site / "latin1.yaml").write_bytes(b"tosca_definitions_version: caf\xe9\n")
    result = run(app, "import", str(site))
    assert result.exit_code == 1
    lines = outcomes(result.output)
    assert lines["latin1.yaml"].startswith("latin1: unreadable: 'utf-8' codec can't decode")
    assert lines["public-net/single_vm.yaml"].startswith("public-net-single-vm: imported")


def test_equal_slugs_from_different_paths_are_reported_not_merged(app, site):
    (site / "private").mkdir()
    shutil.copy(site / "unknown_types.yaml", site / "private" / "net-single_vm.yaml")
    lines = outcomes(run(app, "import", str(site)).output)
    # Paths are taken in order: "private/" sorts before "private-net/".
    assert lines["private/net-single_vm.yaml"].startswith("private-net-single-vm: imported")
    assert lines["private-net/single_vm.yaml"] == (
        "private-net-single-vm: skipped: its slug private-net-single-vm is taken by "
        "private/net-single_vm.yaml"
    )


def test_a_reimport_keeps_what_an_admin_changed_in_the_browser(app, site):
    run(app, "import", str(site))
    with app.app_context():
        latest = operations.get_template("unknown-types").revisions[-1]
        edited = latest.tosca_text.replace("default: 2\n", "default: 4\n")
        operations.save_revision("unknown-types", edited, "", "curator", "More cores")
    path = site / "unknown_types.yaml"
    path.write_text(path.read_text().replace("A machine", "A worker machine"))

    again = outcomes(run(app, "import", str(site)).output)
    assert again["unknown_types.yaml"] == (
        "unknown-types: kept the browser version: edited in the browser since the last "
        "import; --force lets the file win"
    )
    with app.app_context():
        assert operations.get_template("unknown-types").revisions[-1].tosca_text == edited

    forced = outcomes(run(app, "import", "--force", str(site)).output)
    assert forced["unknown_types.yaml"] == "unknown-types: imported: revision 3 published"
    with app.app_context():
        latest = operations.get_template("unknown-types").revisions[-1]
        assert "A worker machine" in latest.tosca_text


def test_an_unchanged_file_after_a_browser_edit_is_still_kept(app, site):
    run(app, "import", str(site))
    with app.app_context():
        latest = operations.get_template("unknown-types").revisions[-1]
        operations.save_revision("unknown-types", latest.tosca_text + "\n", "", "curator")
    again = outcomes(run(app, "import", str(site)).output)
    assert again["unknown_types.yaml"].startswith("unknown-types: kept the browser version")


def test_adding_a_library_revalidates_the_templates_that_import_it(app, site):
    run(app, "import", str(site))
    _unknown, before = template(app, "public-net-single-vm")
    assert before.unresolved_imports and before.libraries == []

    added = run(app, "types", "add", "acme-types", str(CORPUS / "site-types"), "--url", ACME_URL)
    assert "Stored type library acme-types: 5 files." in added.output
    assert "Re-validated" in added.output
    _public, after = template(app, "public-net-single-vm")
    assert after.libraries == ["acme-types"] and after.unresolved_imports == []

    listing = run(app, "types", "list").output
    assert f"answers for {ACME_URL}" in listing
    used_by = listing.split("acme-types (5 files)", 1)[1].split("\n")[2]
    assert "private-net-single-vm" in used_by and "public-net-single-vm" in used_by
    assert "unknown-types: unresolved imports: https://types.unknown.example/" in listing

    removed = run(app, "types", "remove", "acme-types")
    assert removed.exit_code == 0 and "Removed type library acme-types." in removed.output
    _public, again = template(app, "public-net-single-vm")
    assert again.libraries == [] and again.unresolved_imports


def test_the_shipped_libraries_are_registered_by_the_first_import(app, site):
    run(app, "import", str(site))
    listing = run(app, "types", "list").output
    assert "indigo-2025-08 (8 files)" in listing and "indigo-v4.0.1 (1 file)" in listing


@pytest.mark.parametrize(
    "args, message",
    [
        (["bad name", str(CORPUS / "site-types"), "--url", ACME_URL], "Name the library"),
        (["acme", str(CORPUS / "site-types"), "--url", "ftp://x/{path}"], "not a usable URL"),
        (
            ["acme", str(CORPUS / "site-types"), "--url", "https://x/raw/main/all.yaml"],
            "not a usable URL",
        ),
    ],
)
def test_a_bad_library_is_refused_in_words(app, args, message):
    result = run(app, "types", "add", *args)
    assert result.exit_code != 0 and message in result.output


def test_another_sites_file_at_the_same_path_does_not_replace_a_template(app, site, tmp_path):
    """Two catalogues both hold ``public-net/single_vm.yaml``: the second one's file is a
    different application, so importing it leaves the first one's template as it was."""
    run(app, "import", str(site))
    other = tmp_path / "other-site"
    (other / "public-net").mkdir(parents=True)
    theirs = (
        (site / "public-net" / "single_vm.yaml")
        .read_text()
        .replace("description:", "description: Their own machine.\n  #", 1)
    )
    (other / "public-net" / "single_vm.yaml").write_text(theirs)

    second = run(app, "import", str(other))
    assert second.exit_code == 0, second.output
    line = outcomes(second.output)["public-net/single_vm.yaml"]
    assert line.startswith(
        f"public-net-single-vm: skipped: public-net-single-vm is the template imported from "
        f"{site.resolve().as_posix()}/public-net/single_vm.yaml"
    )
    assert "common parent" in line and "--force" in line
    found, _ = template(app, "public-net-single-vm")
    assert len(found.revisions) == 1

    # Its own folder again: nothing changed, nothing skipped.
    again = outcomes(run(app, "import", str(site)).output)
    assert again["public-net/single_vm.yaml"] == "public-net-single-vm: unchanged"
    # Asked for, the other file takes the slug over.
    forced = outcomes(run(app, "import", "--force", str(other)).output)
    assert forced["public-net/single_vm.yaml"] == (
        "public-net-single-vm: imported: revision 2 published"
    )
    assert "Their own machine." in template(app, "public-net-single-vm")[0].revisions[-1].tosca_text


def test_templates_imported_before_roots_were_recorded_adopt_their_folder(app, site, tmp_path):
    run(app, "import", str(site))
    with app.app_context():
        for stored in db.session.scalars(select(CatalogueTemplate)):
            stored.source_root = ""
        db.session.commit()
    again = outcomes(run(app, "import", str(site)).output)
    assert again["public-net/single_vm.yaml"] == "public-net-single-vm: unchanged"
    found, _ = template(app, "public-net-single-vm")
    assert found.source_root == site.resolve().as_posix()


def test_the_projects_own_catalogue_is_recorded_relative_to_the_project():
    from app.catalogue.folders import root_label
    from app.config import PROJECT_ROOT

    assert root_label(PROJECT_ROOT / "tosca-catalog") == "tosca-catalog"
    assert root_label("/srv/catalogues/infn") == "/srv/catalogues/infn"
