"""Admins register type libraries in the browser: an archive of the folder, URL patterns, and
the re-validation that follows; bad archives are refused in words and store nothing."""

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from app.catalogue import operations
from app.catalogue.models import TypeLibrary
from app.extensions import db
from tests.catalogue.admin_support import page_text
from tests.conftest import csrf_from

CORPUS = Path(__file__).parent / "corpus"
ACME_URL = "https://git.acme.example/infra/tosca-types/raw/{ref}/{path}"
PAGE = "/admin/catalogue/libraries/"


def tar_of(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=folder.name)  # one top folder, left out of the paths
    return buffer.getvalue()


def zip_with(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def zip_with_link(name: str, target: str) -> bytes:
    """A zip holding a symbolic link ``name`` -> ``target``, as `zip --symlinks` writes it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("types/real.yaml", b"a: 1\n")
        link = zipfile.ZipInfo(name)
        link.create_system = 3  # Unix, so the mode below is read
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, target)
    return buffer.getvalue()


def upload(client, content: bytes, filename: str, name="acme-types", patterns=ACME_URL):
    token = csrf_from(page_text(client, PAGE))
    return client.post(
        PAGE,
        data={
            "csrf_token": token,
            "name": name,
            "patterns": patterns,
            "archive": (io.BytesIO(content), filename),
        },
        content_type="multipart/form-data",
    )


def libraries(app) -> dict[str, list[str]]:
    with app.app_context():
        return {row.name: [f.path for f in row.files] for row in db.session.query(TypeLibrary)}


@pytest.fixture
def imported(app):
    with app.app_context():
        operations.import_folder(CORPUS / "site-catalogue")


def test_an_admin_uploads_a_library_and_the_templates_using_it_are_revalidated(
    app, client, admin, imported
):
    before = page_text(client, PAGE)
    assert "public-net-single-vm" in before.split("Imports no library holds", 1)[1]

    response = upload(client, tar_of(CORPUS / "site-types"), "site-types.tar.gz")
    assert response.status_code == 302
    assert sorted(libraries(app)["acme-types"]) == [
        "all.yaml",
        "tosca/types/base.yaml",
        "tosca/types/compute.yaml",
        "tosca/types/iam.yaml",
        "tosca/types/network.yaml",
    ]
    page = page_text(client, PAGE)
    assert "Stored type library acme-types (5 files)." in page and "Re-validated" in page
    card = page.split('data-library="acme-types"', 1)[1].split("</section>", 1)[0]
    assert ACME_URL in card
    assert "private-net-single-vm" in card and "public-net-single-vm" in card
    unresolved = page.split("Imports no library holds", 1)[1]
    assert "public-net-single-vm" not in unresolved and "unknown-types" in unresolved
    detail = page_text(client, "/admin/catalogue/public-net-single-vm/edit")
    assert "is in no type library" not in detail


@pytest.mark.parametrize(
    "content, filename, message",
    [
        (zip_with({"../evil.yaml": b"a: 1\n"}), "evil.zip", "points outside the library"),
        (zip_with({"types/x.yaml": b"\xff\xfe"}), "bad.zip", "is not UTF-8 text"),
        (zip_with({"README.md": b"# none\n"}), "empty.zip", "has no .yaml or .yml file"),
        (b"not an archive", "types.txt", "as a .zip or .tar.gz archive"),
        (zip_with_link("types/x.yaml", "/etc/passwd"), "link.zip", "holds links"),
    ],
)
def test_a_bad_archive_is_refused_in_words_and_stores_nothing(
    app, client, admin, content, filename, message
):
    response = upload(client, content, filename)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert "acme-types" not in libraries(app)
    assert 'value="acme-types"' in response.get_data(as_text=True)  # what was typed stays


def test_a_pattern_without_a_path_is_refused_beside_its_field(app, client, admin):
    response = upload(
        client,
        tar_of(CORPUS / "site-types"),
        "t.tar.gz",
        patterns="https://git.acme.example/all.yaml",
    )
    assert response.status_code == 400
    assert "is not a usable URL pattern" in response.get_data(as_text=True)


def test_removing_a_library_revalidates_and_the_revalidate_button_stores_results(
    app, client, admin, imported
):
    upload(client, tar_of(CORPUS / "site-types"), "site-types.tar.gz")
    token = csrf_from(page_text(client, PAGE))
    client.post("/admin/catalogue/libraries/acme-types/remove", data={"csrf_token": token})
    assert "acme-types" not in libraries(app)
    with app.app_context():
        revision = operations.get_template("public-net-single-vm").revisions[-1]
        first_check = revision.validated_at
        assert '"unresolved_imports":["https://git.acme.example' in revision.parsed
    client.post("/admin/catalogue/libraries/revalidate", data={"csrf_token": token})
    with app.app_context():
        assert operations.get_template("public-net-single-vm").revisions[-1].validated_at > (
            first_check
        )
