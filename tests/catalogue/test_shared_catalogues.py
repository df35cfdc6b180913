"""Patterns met when a site imports catalogues other sites publish (tests/catalogue/corpus/
shared-catalogues, see its README): a key given twice, a catalogue written for another
orchestrator's dialect, and required choices without a default."""

import re
from pathlib import Path

import pytest

from app.catalogue import operations
from app.catalogue.folders import IMPORTED, SKIPPED
from app.catalogue.forms import build_form_class
from app.catalogue.models import CatalogueTemplate
from app.deployments.models import Deployment
from app.extensions import db
from app.tosca.parsed import parse_template
from tests.catalogue.conftest import TYPES_DIR
from tests.conftest import csrf_from

SHARED = Path(__file__).parent / "corpus" / "shared-catalogues"
DIALECT = "tosca_definitions_version alien_dsl_3_0_0 is Alien4Cloud's own dialect"


def parse(relative: str):
    return parse_template("shared", (SHARED / relative).read_text(), types_dir=TYPES_DIR)


def line_of(relative: str, fragment: str, occurrence: int = 1) -> int:
    lines = (SHARED / relative).read_text().splitlines()
    found = [number for number, line in enumerate(lines, 1) if fragment in line]
    return found[occurrence - 1]


def total(html: str, label: str) -> str:
    match = re.search(rf"<dt[^>]*>{label}</dt>\s*<dd[^>]*>([^<]*)<", html)
    assert match, f"no {label} total in the summary"
    return match.group(1).strip()


@pytest.fixture
def app(make_app):
    portal = make_app(ORCHESTRATOR_URL="demo")
    with portal.app_context():
        for slug in ("repeated-input", "single-choice"):
            text = (SHARED / f"{slug.replace('-', '_')}.yaml").read_text()
            revision = operations.save_revision(slug, text, "", "curator", create=True)
            assert revision.valid, revision.parsed
            operations.publish(slug, "curator", revision.number)
    return portal


# --- a key given twice ---------------------------------------------------------------------


def test_a_key_given_twice_counts_once_the_later_one_with_a_named_warning_on_its_line():
    parsed = parse("repeated_input.yaml")
    assert parsed.errors == []
    repeated = {w.line: w.message for w in parsed.warnings if w.code == "duplicate-key"}
    assert set(repeated) == {
        line_of("repeated_input.yaml", "cores:", 2),
        line_of("repeated_input.yaml", "description: Ports to open"),
    }
    first_cores = line_of("repeated_input.yaml", "cores:", 1)
    assert f"(first on line {first_cores})" in repeated[line_of("repeated_input.yaml", "cores:", 2)]
    cores = next(spec for spec in parsed.inputs if spec.name == "cores")
    assert (cores.default, cores.description) == (2, "Cores of the machine")
    ports = next(spec for spec in parsed.inputs if spec.name == "ports")
    assert ports.description == "Ports to open"
    assert build_form_class(parsed).input_fields["cores"].form_default() == 2


def test_a_template_with_a_key_given_twice_is_launched_and_counted_by_the_later_one(
    app, client, login_as
):
    login_as("user", username="ada")
    page = client.get("/catalogue/repeated-input/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert total(html, "CPU cores") == "2"
    response = client.post(
        "/catalogue/repeated-input/",
        data={"csrf_token": csrf_from(html), "cores": "2", "deployment_name": "Twice"},
    )
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    with app.app_context():
        (deployment,) = db.session.scalars(db.select(Deployment)).all()
        assert deployment.parameters == {"cores": 2}  # ports left to its default


# --- another orchestrator's dialect ----------------------------------------------------------


def test_a_folder_in_another_orchestrators_dialect_is_skipped_saying_why(make_app):
    portal = make_app()
    with portal.app_context():
        results = operations.import_folder(SHARED / "other-dialect")
        assert [(r.relative, r.outcome) for r in results] == [
            ("compute_template.yaml", SKIPPED),
            ("types.yaml", SKIPPED),  # no type library to register either
        ]
        assert all(r.detail.startswith(DIALECT) for r in results)
        assert db.session.scalars(db.select(CatalogueTemplate)).all() == []
        imported = operations.import_folder(SHARED, force=True)
        assert {r.slug: r.outcome for r in imported if r.outcome == IMPORTED} == {
            "repeated-input": IMPORTED,
            "single-choice": IMPORTED,
        }


def test_such_a_template_checked_alone_is_refused_on_its_version_line_naming_its_archives():
    parsed = parse("other-dialect/compute_template.yaml")
    first = parsed.errors[0]
    assert first.message.startswith(DIALECT)
    assert "site-openstack-types:3.1.0" in first.message
    assert first.line == line_of("other-dialect/compute_template.yaml", "tosca_definitions")
    assert not any("no tosca_definitions_version" in e.message for e in parsed.errors)


def test_a_version_of_no_known_dialect_is_named_as_written():
    text = (
        (SHARED / "single_choice.yaml")
        .read_text()
        .replace("tosca_simple_yaml_1_0", "cloudify_dsl_1_3", 1)
    )
    parsed = parse_template("shared", text, types_dir=TYPES_DIR)
    assert parsed.errors[0].message.startswith(
        "tosca_definitions_version cloudify_dsl_1_3 is not a TOSCA Simple Profile version"
    )


# --- required choices without a default ------------------------------------------------------


def test_a_required_input_with_one_allowed_value_is_shown_counted_and_sent(app, client, login_as):
    login_as("user", username="ada")
    html = client.get("/catalogue/single-choice/").get_data(as_text=True)
    assert re.search(r'<option selected value="1">1</option>|<option value="1" selected', html)
    assert total(html, "Machines") == "2"  # the head node and one worker
    assert "Cost cannot be computed" not in html
    # Several allowed values and no default: nothing looks chosen until the user chooses.
    profile = re.search(r'<select[^>]*name="profile"[^>]*>(.*?)</select>', html, re.S).group(1)
    assert re.match(r'<option (selected )?value="">Choose...</option>', profile)

    csrf = csrf_from(html)
    unchosen = client.post(
        "/catalogue/single-choice/", data={"csrf_token": csrf, "heads": "1", "profile": ""}
    )
    assert unchosen.status_code == 400
    assert "This field is required." in unchosen.get_data(as_text=True)
    chosen = client.post(
        "/catalogue/single-choice/",
        data={"csrf_token": csrf, "heads": "1", "profile": "batch", "workers": "1"},
    )
    assert chosen.status_code == 302, chosen.get_data(as_text=True)[:2000]
    with app.app_context():
        (deployment,) = db.session.scalars(db.select(Deployment)).all()
        assert deployment.parameters == {"heads": 1, "profile": "batch", "workers": 1}
