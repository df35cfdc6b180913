"""Which backend serves a template: the sidecar's ``backend``, the admin's choice, else the
site's default; a backend that cannot deploy a template is refused in words, and nothing is
saved."""

import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.catalogue import operations
from app.catalogue.loader import catalogue
from app.catalogue.models import CatalogueTemplate, TemplateRevision
from app.catalogue.routing import node_types, serving_backend
from app.errors import ConfigurationError
from app.extensions import db
from tests.catalogue.admin_support import VM, VM_SIDECAR, page_text, save
from tests.conftest import csrf_from, post_form

STARTER = Path(__file__).resolve().parents[2] / "tosca-catalog"
MARATHON = (STARTER / "marathon-gpu-container.yaml").read_text(encoding="utf-8")
MARATHON_SIDECAR = (STARTER / "marathon-gpu-container.portal.yaml").read_text(encoding="utf-8")
CHRONOS = (STARTER / "chronos-gpu-job.yaml").read_text(encoding="utf-8")
CHRONOS_SIDECAR = (STARTER / "chronos-gpu-job.portal.yaml").read_text(encoding="utf-8")
ON_IM = VM_SIDECAR + "backend: im\n"


def stored(app, slug):
    with app.app_context():
        template = db.session.scalar(
            select(CatalogueTemplate).where(CatalogueTemplate.slug == slug)
        )
        return None if template is None else (template.backend, len(template.revisions))


def revisions_count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(TemplateRevision.id)))


# --- Routing by sidecar and by default --------------------------------------------------------


def test_a_sidecar_naming_im_routes_the_template_there(app):
    save(app, "vm", VM, ON_IM, create=True, publish=True)

    assert stored(app, "vm") == ("im", 1)
    with app.test_request_context():
        entry = catalogue().get("vm")
        assert (entry.backend, entry.serving_backend, entry.runs_on) == (
            "im",
            "im",
            "Infrastructure Manager",
        )


def test_a_template_without_a_choice_runs_on_the_sites_default(app, make_app):
    save(app, "vm", create=True, publish=True)
    assert stored(app, "vm") == (None, 1)
    with app.test_request_context():
        assert catalogue().get("vm").serving_backend == "paas"
    on_im = make_app(DEFAULT_BACKEND="im")
    with on_im.test_request_context():
        template = operations.save_revision("vm", VM, VM_SIDECAR, "seed", create=True)
        assert serving_backend(template.template) == "im"


def test_an_unknown_backend_in_a_sidecar_is_refused_in_words_and_nothing_is_saved(app):
    with app.app_context(), pytest.raises(operations.CatalogueError) as refused:
        operations.save_revision("vm", VM, VM_SIDECAR + "backend: cloudy\n", "seed", create=True)

    assert "“cloudy” is no backend this portal knows" in refused.value.message
    assert "im (Infrastructure Manager)" in refused.value.message
    assert refused.value.field == "sidecar_text"
    assert stored(app, "vm") is None
    assert revisions_count(app) == 0


def test_im_refuses_a_marathon_template_naming_the_node_type(app):
    with app.app_context(), pytest.raises(operations.CatalogueError) as refused:
        operations.save_revision(
            "gpu", MARATHON, MARATHON_SIDECAR + "backend: im\n", "seed", create=True
        )

    message = refused.value.message
    assert "The Infrastructure Manager cannot deploy" in message
    assert "tosca.nodes.indigo.Container.Application.Docker.Marathon" in message
    assert stored(app, "gpu") is None


def test_a_new_revision_im_cannot_take_is_refused_for_a_template_already_on_im(app):
    save(app, "app", create=True, publish=True)
    with app.app_context():
        operations.set_backend("app", "im", "curator")
        with pytest.raises(operations.CatalogueError) as refused:
            operations.save_revision("app", CHRONOS, CHRONOS_SIDECAR, "curator")

    assert "tosca.nodes.indigo.Container.Application.Docker.Chronos" in refused.value.message
    assert stored(app, "app") == ("im", 1)


def test_the_sites_default_refuses_what_it_cannot_deploy(make_app):
    on_im = make_app(DEFAULT_BACKEND="im")
    with on_im.app_context(), pytest.raises(operations.CatalogueError) as refused:
        operations.save_revision("job", CHRONOS, CHRONOS_SIDECAR, "seed", create=True)
    assert "Chronos" in refused.value.message
    with on_im.app_context():
        saved = operations.save_revision(
            "job", CHRONOS, CHRONOS_SIDECAR + "backend: paas\n", "seed", create=True
        )
        assert saved.template.backend == "paas"


def test_a_sidecar_line_left_as_it_was_keeps_an_admins_later_choice(app):
    save(app, "vm", VM, VM_SIDECAR + "backend: paas\n", create=True)
    with app.app_context():
        operations.set_backend("vm", "im", "curator")
    save(app, "vm", VM.replace("default: 2", "default: 4"), VM_SIDECAR + "backend: paas\n")
    assert stored(app, "vm") == ("im", 2)

    save(app, "vm", VM, VM_SIDECAR)  # the line removed: back to the site's default
    assert stored(app, "vm") == (None, 3)


def test_node_types_name_each_nodes_type_and_its_ancestors(app):
    with app.app_context():
        found = node_types(CHRONOS, operations.library_set())

    assert found.index("tosca.nodes.indigo.Container.Application.Docker.Chronos") < found.index(
        "tosca.nodes.indigo.Container.Application.Docker"
    )
    assert "tosca.nodes.Container.Application.Docker" in found
    assert "tosca.nodes.indigo.Container.Runtime.Docker" in found
    assert "tosca.nodes.Root" in found
    with app.app_context():
        assert node_types("not: [closed\n", operations.library_set()) == ()


def test_an_unknown_default_backend_stops_the_portal_with_a_clear_message(make_app):
    with pytest.raises(ConfigurationError, match="DEFAULT_BACKEND is 'nowhere'.*paas, im"):
        make_app(DEFAULT_BACKEND="nowhere")


# --- The admin's choice -----------------------------------------------------------------------


def test_an_admin_chooses_im_on_the_templates_page(app, client, admin):
    save(app, "vm", create=True, publish=True)
    html = page_text(client, "/admin/catalogue/vm/")
    assert "The site&#39;s default (PaaS Orchestrator)" in html
    assert '<option value="im">Infrastructure Manager</option>' in html

    response = post_form(
        client, "/admin/catalogue/vm/", "/admin/catalogue/vm/backend", {"backend": "im"}
    )

    assert response.status_code == 302
    assert stored(app, "vm") == ("im", 1)
    html = page_text(client, "/admin/catalogue/vm/")
    assert "vm runs on Infrastructure Manager from now on." in html
    assert 'data-runs-on="im">Infrastructure Manager' in html

    post_form(client, "/admin/catalogue/vm/", "/admin/catalogue/vm/backend", {"backend": ""})
    assert stored(app, "vm") == (None, 1)


def test_an_admin_choosing_im_for_a_chronos_job_is_refused_beside_the_choice(app, client, admin):
    save(app, "job", CHRONOS, CHRONOS_SIDECAR, create=True, publish=True)

    response = post_form(
        client, "/admin/catalogue/job/", "/admin/catalogue/job/backend", {"backend": "im"}
    )

    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "is-invalid" in html
    assert "tosca.nodes.indigo.Container.Application.Docker.Chronos" in html
    assert stored(app, "job") == (None, 1)


def test_a_backend_that_is_no_choice_is_refused(app, client, admin):
    save(app, "vm", create=True)
    response = post_form(
        client, "/admin/catalogue/vm/", "/admin/catalogue/vm/backend", {"backend": "cloudy"}
    )
    assert response.status_code == 400
    assert stored(app, "vm") == (None, 1)


def test_researchers_read_where_each_template_runs_on_its_card(app, client, login_as):
    save(app, "vm", create=True, publish=True)
    save(app, "vm-im", VM, ON_IM, create=True, publish=True)
    login_as("user")

    html = page_text(client, "/catalogue/")

    assert 'data-runs-on="paas">Runs on: PaaS Orchestrator' in html
    assert 'data-runs-on="im">Runs on: Infrastructure Manager' in html


def test_cards_say_where_it_runs_in_italian(app, client, login_as):
    save(app, "vm-im", VM, ON_IM, create=True, publish=True)
    login_as("user")
    html = client.get("/catalogue/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Funziona su: Infrastructure Manager" in html


# --- Folders ----------------------------------------------------------------------------------


def run(app, *args):
    return app.test_cli_runner().invoke(args=["catalogue", *args])


@pytest.fixture
def folder(tmp_path):
    target = tmp_path / "catalogue"
    target.mkdir()
    for name in ("vm.yaml", "chronos-gpu-job.yaml", "chronos-gpu-job.portal.yaml"):
        shutil.copy(STARTER / name, target / name)
    (target / "vm.portal.yaml").write_text(ON_IM, encoding="utf-8")
    return target


def test_an_import_routes_templates_as_their_sidecars_say(app, folder):
    result = run(app, "import", str(folder))

    assert result.exit_code == 0, result.output
    assert "vm.yaml -> vm: imported: revision 1 published" in result.output
    assert stored(app, "vm") == ("im", 1)
    assert stored(app, "chronos-gpu-job") == (None, 1)


def test_an_import_refuses_a_file_routed_where_it_cannot_run_and_imports_the_rest(app, folder):
    sidecar = folder / "chronos-gpu-job.portal.yaml"
    sidecar.write_text(CHRONOS_SIDECAR + "backend: im\n", encoding="utf-8")
    (folder / "other.yaml").write_text(VM, encoding="utf-8")
    (folder / "other.portal.yaml").write_text(VM_SIDECAR + "backend: nimbus\n", encoding="utf-8")

    result = run(app, "import", str(folder))

    assert result.exit_code == 1
    assert (
        "chronos-gpu-job.yaml -> chronos-gpu-job: refused: The Infrastructure Manager cannot "
        "deploy nodes of type tosca.nodes.indigo.Container.Application.Docker.Chronos"
    ) in result.output
    assert "other.yaml -> other: refused: “nimbus” is no backend this portal knows" in (
        result.output
    )
    assert "vm.yaml -> vm: imported" in result.output
    assert stored(app, "chronos-gpu-job") is None
    assert stored(app, "other") is None


def test_an_export_writes_the_templates_backend_into_its_sidecar(app, make_app, folder, tmp_path):
    run(app, "import", str(folder))
    with app.app_context():
        operations.set_backend("vm", None, "curator")
        operations.set_backend("chronos-gpu-job", "paas", "curator")
    out = tmp_path / "out"

    result = run(app, "export", str(out))

    assert result.exit_code == 0, result.output
    assert "backend" not in (out / "vm.portal.yaml").read_text(encoding="utf-8")
    exported = (out / "chronos-gpu-job.portal.yaml").read_text(encoding="utf-8")
    assert exported.endswith("backend: paas\n")
    assert exported.startswith(CHRONOS_SIDECAR.split("\n", 1)[0])
    other = make_app()
    run(other, "import", str(out))
    assert stored(other, "chronos-gpu-job") == ("paas", 1)


def test_an_edit_routing_a_template_where_it_cannot_run_is_refused_with_the_text_kept(
    app, client, admin
):
    save(app, "job", CHRONOS, CHRONOS_SIDECAR, create=True)
    sidecar = CHRONOS_SIDECAR + "backend: im\n"

    response = post_form(
        client,
        "/admin/catalogue/job/edit",
        "/admin/catalogue/job/edit",
        {"tosca_text": CHRONOS, "sidecar_text": sidecar},
    )

    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "The Infrastructure Manager cannot deploy nodes of type" in html
    assert "backend: im" in html
    assert stored(app, "job") == (None, 1)


def test_an_unknown_backend_is_refused_beside_the_sidecar_in_italian(app, client, admin):
    save(app, "vm", create=True)

    response = client.post(
        "/admin/catalogue/vm/edit",
        headers={"Accept-Language": "it"},
        data={
            "csrf_token": csrf_from(page_text(client, "/admin/catalogue/vm/edit")),
            "tosca_text": VM,
            "sidecar_text": VM_SIDECAR + "backend: nimbus\n",
        },
    )

    assert response.status_code == 400
    assert "“nimbus” non è un backend che questo portale conosce" in response.get_data(as_text=True)
    assert stored(app, "vm") == (None, 1)


def test_validate_reports_a_sidecar_routing_a_file_where_it_cannot_run(app, folder):
    sidecar = folder / "chronos-gpu-job.portal.yaml"
    sidecar.write_text(CHRONOS_SIDECAR + "backend: im\n", encoding="utf-8")

    result = run(app, "validate", str(folder / "chronos-gpu-job.yaml"), str(folder / "vm.yaml"))

    assert result.exit_code == 1
    assert "chronos-gpu-job.yaml: 1 error(s)" in result.output
    assert "cannot deploy nodes of type tosca.nodes.indigo.Container.Application.Docker" in (
        result.output
    )
    assert "vm.yaml: valid" in result.output


UNKNOWN_PROPERTY = (
    Path(__file__).parent / "corpus" / "backend-judged" / "unknown_property.yaml"
).read_text(encoding="utf-8")


def test_routing_to_a_backend_that_refuses_the_published_revision_is_refused(app):
    save(app, "typo", UNKNOWN_PROPERTY, "", create=True, publish=True)
    with app.app_context(), pytest.raises(operations.CatalogueError) as refused:
        operations.set_backend("typo", "im", "curator")
    assert refused.value.field == "backend"
    assert "Infrastructure Manager would refuse the published revision 1" in refused.value.message
    assert 'unknown field "colour"' in refused.value.message
    assert stored(app, "typo") == (None, 1)
    with app.app_context():
        assert operations.get_template("typo").published_revision.valid


def test_routing_a_draft_to_another_backend_judges_it_as_that_backend_does(app):
    save(app, "draft", UNKNOWN_PROPERTY, "", create=True)
    with app.app_context():
        operations.set_backend("draft", "im", "curator")
        revision = operations.get_template("draft").revisions[0]
        assert not revision.valid and "tosca-parser" in revision.parsed
        operations.set_backend("draft", None, "curator")
        assert operations.get_template("draft").revisions[0].valid
