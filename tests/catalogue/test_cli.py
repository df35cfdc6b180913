"""``flask catalogue import|export|validate|types`` keep folders and the database in step."""

import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from app.catalogue.models import CatalogueTemplate
from app.extensions import db

STARTER = Path(__file__).resolve().parents[2] / "tosca-catalog"


@pytest.fixture
def folder(tmp_path):
    """A copy of two starter templates with their sidecars and icons."""
    target = tmp_path / "catalogue"
    target.mkdir()
    for name in ("vm.yaml", "vm.portal.yaml", "jupyter-vm.yaml", "jupyter-vm.portal.yaml"):
        shutil.copy(STARTER / name, target / name)
    return target


def run(app, *args):
    return app.test_cli_runner().invoke(args=["catalogue", *args])


def test_import_creates_and_publishes_each_template_then_leaves_unchanged_ones_alone(app, folder):
    first = run(app, "import", str(folder))
    assert first.exit_code == 0, first.output
    assert "jupyter-vm.yaml -> jupyter-vm: imported: revision 1 published" in first.output
    assert "vm.yaml -> vm: imported: revision 1 published" in first.output
    again = run(app, "import", str(folder))
    assert "vm.yaml -> vm: unchanged" in again.output
    assert "jupyter-vm.yaml -> jupyter-vm: unchanged" in again.output


def test_a_changed_file_becomes_a_new_published_revision(app, folder):
    run(app, "import", str(folder))
    sidecar = folder / "vm.portal.yaml"
    sidecar.write_text(sidecar.read_text().replace("name: ", "name: Renamed ", 1))
    result = run(app, "import", str(folder))
    assert "vm.yaml -> vm: imported: revision 2 published" in result.output
    with app.app_context():
        template = db.session.scalar(
            select(CatalogueTemplate).where(CatalogueTemplate.slug == "vm")
        )
        assert template.published_revision.number == 2


def test_a_broken_file_is_stored_but_not_published_and_the_rest_still_imports(app, folder):
    (folder / "broken.yaml").write_text("tosca_definitions_version: [unclosed\n")
    result = run(app, "import", str(folder))
    assert result.exit_code == 0
    assert "broken.yaml -> broken: invalid: revision 1 not published: template, line 2:" in (
        result.output
    )
    assert "vm.yaml -> vm: imported: revision 1 published" in result.output
    with app.app_context():
        broken = db.session.scalar(
            select(CatalogueTemplate).where(CatalogueTemplate.slug == "broken")
        )
        assert broken.published_revision_id is None


def test_export_writes_the_curated_state_back_as_files(app, folder, tmp_path):
    run(app, "import", str(folder))
    out = tmp_path / "exported"
    result = run(app, "export", str(out))
    assert result.exit_code == 0 and "Wrote 4 files" in result.output
    for name in ("vm.yaml", "vm.portal.yaml", "jupyter-vm.yaml", "jupyter-vm.portal.yaml"):
        assert (out / name).read_text() == (folder / name).read_text()


def test_validate_reports_errors_with_their_line_and_fails(app, folder):
    broken = folder / "broken.yaml"
    broken.write_text(
        "tosca_definitions_version: tosca_simple_yaml_1_0\n"
        "topology_template:\n"
        "  inputs:\n"
        "    size: {type: integer, default: big}\n"
    )
    result = run(app, "validate", str(broken), str(folder / "vm.yaml"))
    assert result.exit_code == 1
    assert f"{broken}: " in result.output and "error" in result.output
    assert "line 4" in result.output
    assert f"{folder / 'vm.yaml'}: valid" in result.output


def test_validate_passes_on_the_starter_catalogue(app):
    result = run(app, "validate")
    assert result.exit_code == 0, result.output
    assert result.output.count(": valid") == 7
