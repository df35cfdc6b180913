"""A site's own catalogue (tests/catalogue/corpus/, see its README): its type library split into
files that import each other by URL, the leniencies the orchestrator allows, each reported by
name on its line, and the templates whose types no library holds."""

from pathlib import Path

import pytest

from app.catalogue.forms import build_form_class, check_parameters
from app.tosca.leniency import LENIENCIES
from app.tosca.parsed import parse_template, shipped_libraries
from app.tosca.typelibs import LibrarySet, TypeLibrary, read_files
from tests.catalogue.conftest import TYPES_DIR, form_data

CORPUS = Path(__file__).parent / "corpus"
SITE = CORPUS / "site-catalogue"
ACME_URL = "https://git.acme.example/infra/tosca-types/raw/{ref}/{path}"


def acme_library() -> TypeLibrary:
    return TypeLibrary("acme-types", "v1.2", (ACME_URL,), read_files(CORPUS / "site-types"))


@pytest.fixture(scope="module")
def libraries() -> LibrarySet:
    return LibrarySet([acme_library(), *shipped_libraries(TYPES_DIR).libraries])


def parse(relative: str, libraries: LibrarySet):
    return parse_template("corpus", (SITE / relative).read_text(), libraries=libraries)


def line_of(relative: str, fragment: str) -> int:
    lines = (SITE / relative).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if fragment in line)


def by_code(parsed) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for warning in parsed.warnings:
        found.setdefault(warning.code, []).append(warning.line)
    return found


def test_type_files_importing_each_other_at_other_refs_and_in_a_circle_all_resolve(libraries):
    parsed = parse("public-net/single_vm.yaml", libraries)
    assert parsed.errors == [] and parsed.warnings == []
    assert parsed.libraries == ["acme-types"] and parsed.unresolved_imports == []


def test_without_the_library_its_imports_are_unresolved_but_the_template_stays_publishable():
    shipped = shipped_libraries(TYPES_DIR)
    parsed = parse("public-net/single_vm.yaml", shipped)
    assert parsed.errors == []
    assert parsed.unresolved_imports == [
        "https://git.acme.example/infra/tosca-types/raw/master/all.yaml"
    ]
    assert parsed.warnings[0].line == line_of("public-net/single_vm.yaml", "acme_types:")


def test_a_type_file_importing_what_no_library_holds_is_named_in_a_warning(libraries):
    files = dict(acme_library().files)
    files["all.yaml"] += "  - extra: https://elsewhere.example/more.yaml\n"
    partial = LibrarySet([TypeLibrary("acme-types", "", (ACME_URL,), files)])
    parsed = parse("public-net/single_vm.yaml", partial)
    assert "https://elsewhere.example/more.yaml (imported by acme-types/all.yaml)" in (
        parsed.unresolved_imports
    )
    assert any("https://elsewhere.example/more.yaml" in w.message for w in parsed.warnings)


def test_each_leniency_is_a_named_warning_on_its_own_line(libraries):
    name = "private-net/single_vm.yaml"
    parsed = parse(name, libraries)
    assert parsed.errors == []
    assert by_code(parsed) == {
        "list-index": [line_of(name, "get_property: [ server, os_users, 0 ]")],
        "mapping-constraints": [
            line_of(name, "{in_range: [1, 8]}"),
            line_of(name, "{in_range: [1 GB, 64 GB]}"),
        ],
        "number-for-string": [line_of(name, "default: 21600")],
        "deploy-time-property": [line_of(name, "proxy_host ] }")],
    }
    for warning in parsed.warnings:
        assert LENIENCIES[warning.code].why in warning.message


def test_an_attribute_filled_at_deploy_time_points_at_the_output_asking_for_it(libraries):
    parsed = parse("apps/iam_client.yaml", libraries)
    assert parsed.errors == []
    assert by_code(parsed) == {
        "deploy-time-property": [line_of("apps/iam_client.yaml", "client, client_id")]
    }


def test_every_leniency_of_the_table_says_why_it_is_accepted():
    assert set(LENIENCIES) == {
        "list-index",
        "deploy-time-property",
        "mapping-constraints",
        "number-for-string",
        "integer-for-float",
        "missing-host",
        "duplicate-key",
    }
    assert all(row.why.endswith(".") and row.title for row in LENIENCIES.values())


def test_a_tosca_parser_crash_is_located_on_its_output_and_the_rest_still_checked(libraries):
    text = (SITE / "private-net/single_vm.yaml").read_text()
    # An unknown node type makes tosca-parser crash on the get_attribute of that node.
    text = text.replace("type: acme.nodes.Network", "type: acme.nodes.Nope").replace(
        "    timeout:\n",
        "    net:\n      value: { get_attribute: [ priv_network, x, 0 ] }\n    timeout:\n",
    )
    parsed = parse_template("crash", text, libraries=libraries)
    assert parsed.errors == []
    (crash,) = [w for w in parsed.warnings if w.message.startswith("tosca-parser failed")]
    assert 'on output "net" (AttributeError' in crash.message
    assert crash.line == text.splitlines().index("    net:") + 1
    messages = [w.message for w in parsed.warnings]
    assert any('Type "acme.nodes.Nope" is not a valid type' in m for m in messages)


@pytest.mark.parametrize(
    "relative",
    [
        "private-net/single_vm.yaml",
        "public-net/single_vm.yaml",
        "apps/iam_client.yaml",
        "unknown_types.yaml",
    ],
)
def test_each_launchable_corpus_template_gets_a_form_whose_defaults_pass(
    relative, libraries, form_app
):
    parsed = parse(relative, libraries)
    assert parsed.errors == []
    form_class = build_form_class(parsed)
    values = {
        name: field.coerce(field.spec.default)
        for name, field in form_class.input_fields.items()
        if field.spec.has_default
    }
    with form_app.test_request_context(method="POST", data=form_data(form_class, values)):
        form = form_class()
        assert form.validate(), form.errors
        parameters = form.to_parameters()
    assert check_parameters(parsed, parameters) == parameters


def test_integer_defaults_of_string_inputs_are_sent_as_text(libraries, form_app):
    parsed = parse("private-net/single_vm.yaml", libraries)
    form_class = build_form_class(parsed)
    with form_app.test_request_context(method="POST", data=form_data(form_class, {})):
        form = form_class()
        form.validate()
        assert form.to_parameters()["session_timeout"] == "21600"


def test_a_get_input_of_an_undefined_input_is_refused_with_its_line(libraries):
    parsed = parse("broken/undefined_input.yaml", libraries)
    (error,) = parsed.errors
    assert "get_input: memory_size names an input the template does not define" in error.message
    assert error.line == line_of("broken/undefined_input.yaml", "memory_size")
