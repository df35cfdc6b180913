"""Templates judged as the backend that runs them will judge them (corpus/backend-judged, see
its README): ``flask catalogue validate``, the admins' upload page and the launch page say the
same for each, whether the template runs on the orchestrator or on the Infrastructure Manager."""

import html
import io
from pathlib import Path

import pytest

from app.catalogue import operations
from app.catalogue.models import TemplateRevision
from app.extensions import db
from tests.conftest import csrf_from

CORPUS = Path(__file__).parent / "corpus" / "backend-judged"
SIDECARS = {"paas": "", "im": "backend: im\n"}
IM_REFUSES = "The Infrastructure Manager runs this same check (tosca-parser) on the template"

# file: {backend: (an error or a warning, words it holds)}
JUDGED = {
    "undefined_requirement": {
        "paas": ("error", 'requires host: "simple_node", a node template the template does not'),
        "im": ("error", 'requires host: "simple_node", a node template the template does not'),
    },
    "unknown_property": {
        "paas": ("warning", 'Type check: "properties" of template "server" contains unknown'),
        "im": (
            "error",
            f'contains unknown field "colour". Refer to the definition to verify '
            f"valid values. {IM_REFUSES}",
        ),
    },
    "unhosted_software": {
        "paas": ("warning", "(missing-host)"),
        "im": (
            "error",
            f'Relationship "host" in template "app" has a wrong number of occurrences {IM_REFUSES}',
        ),
    },
    "value_of_wrong_type": {
        "paas": ("warning", 'Type check: "big" is not a valid scalar-unit.'),
        "im": ("error", f'Type check: "big" is not a valid scalar-unit. {IM_REFUSES}'),
    },
    "default_breaks_constraint": {
        "paas": ("warning", "its default '1 GB' breaks its own constraints"),
        "im": ("warning", "its default '1 GB' breaks its own constraints"),
    },
    "stand_in_version": {
        "paas": (
            "warning",
            'type library "indigo-2025-08" stood in for it, so the types were '
            "checked against its files, which may differ from those the orchestrator "
            "fetches",
        ),
        "im": (
            "warning",
            'type library "indigo-2025-08" stood in for it, so the types were '
            "checked against its files, which may differ from those the Infrastructure "
            "Manager fetches",
        ),
    },
    "no_imports_custom_type": {
        "paas": (
            "error",
            "imports no type library that could define it, so the orchestrator would refuse it.",
        ),
        "im": (
            "error",
            "imports no type library that could define it, so the Infrastructure "
            "Manager would refuse it.",
        ),
    },
}
CASES = [(name, backend) for name in JUDGED for backend in ("paas", "im")]


def _slug(name: str, backend: str) -> str:
    return f"{name.replace('_', '-')}-{backend}"


def _validated(app, tmp_path, name, backend):
    copy = tmp_path / f"{name}.yaml"
    copy.write_text((CORPUS / f"{name}.yaml").read_text())
    if SIDECARS[backend]:
        (tmp_path / f"{name}.portal.yaml").write_text(SIDECARS[backend])
    return app.test_cli_runner().invoke(args=["catalogue", "validate", str(copy)])


def _uploaded(app, client, name, backend):
    slug = _slug(name, backend)
    page = client.get("/admin/catalogue/new")
    answer = client.post(
        "/admin/catalogue/new/upload",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "slug": slug,
            "tosca_file": (io.BytesIO((CORPUS / f"{name}.yaml").read_bytes()), f"{name}.yaml"),
            "sidecar_file": (io.BytesIO(SIDECARS[backend].encode()), f"{name}.portal.yaml"),
        },
        content_type="multipart/form-data",
    )
    assert answer.status_code == 302, answer.get_data(as_text=True)[:500]
    shown = client.get(f"/admin/catalogue/{slug}/revisions/1")
    with app.app_context():
        revision = db.session.scalar(db.select(TemplateRevision))
        valid = revision.valid
    return slug, valid, html.unescape(shown.get_data(as_text=True))


@pytest.mark.parametrize(("name", "backend"), CASES, ids=[f"{n}-{b}" for n, b in CASES])
def test_validate_the_upload_page_and_the_launch_page_say_the_same(
    app, client, admin, tmp_path, name, backend
):
    kind, words = JUDGED[name][backend]

    result = _validated(app, tmp_path, name, backend)
    assert result.exit_code == (1 if kind == "error" else 0), result.output
    said = [line for line in result.output.splitlines() if words in line]
    assert said and all(line.startswith("  warning:") == (kind == "warning") for line in said)

    slug, valid, page = _uploaded(app, client, name, backend)
    assert valid is (kind == "warning")
    assert words in " ".join(page.split())

    with app.app_context():
        if kind == "error":
            with pytest.raises(operations.CatalogueError):
                operations.publish(slug, "curator", 1)
        else:
            operations.publish(slug, "curator", 1)
    launch = client.get(f"/catalogue/{slug}/")
    assert launch.status_code == (404 if kind == "error" else 200)


@pytest.mark.parametrize("backend", ["paas", "im"])
def test_a_default_outside_its_own_constraints_is_to_be_chosen_on_the_launch_form(
    app, client, admin, backend
):
    slug, valid, _page = _uploaded(app, client, "default_breaks_constraint", backend)
    with app.app_context():
        operations.publish(slug, "curator", 1)

    form = html.unescape(client.get(f"/catalogue/{slug}/").get_data(as_text=True))

    assert valid
    assert "The template's own default, 1 GB, is outside what it allows: choose a value." in form
    assert 'value="1 GB"' not in form


def test_the_stand_in_is_named_the_same_whether_the_libraries_are_registered_or_shipped(
    app, tmp_path
):
    before = _validated(app, tmp_path, "stand_in_version", "im").output
    with app.app_context():
        assert operations.ensure_shipped("curator") == ["indigo-2025-08", "indigo-v4.0.1"]
    after = _validated(app, tmp_path, "stand_in_version", "im").output

    assert before == after
    assert "warning: template, line 4: Import https://raw.githubusercontent.com/indigo-dc/" in after
    assert JUDGED["stand_in_version"]["im"][1] in " ".join(after.split())
