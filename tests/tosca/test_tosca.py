"""Templates are validated offline against local type copies; sidecars fill in the display."""

import socket
import urllib.request

import pytest

from app.tosca.metadata import read_metadata
from app.tosca.parsed import ParsedTemplate
from app.tosca.tosca import find_line
from app.tosca.typelibs import from_folder
from app.tosca.yamlsafe import Limits

MASTER = "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the catalogue tried to reach the network")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_a_good_template_validates_against_the_version_its_url_names(parse_text, simple_template):
    parsed = parse_text(simple_template)
    assert parsed.errors == [] and parsed.warnings == []
    assert parsed.types_version == "indigo-2025-08"
    assert [i.name for i in parsed.inputs] == ["num_cpus", "mem_size", "ssh_public_key", "ports"]
    assert parsed.inputs[0].line == 14


def test_type_findings_are_warnings_on_the_line_of_the_offending_node(parse_text, simple_template):
    text = simple_template.replace(
        "            type: linux\n", "            type: linux\n            colour: blue\n"
    )
    parsed = parse_text(text)
    assert parsed.errors == []
    (problem,) = parsed.warnings
    assert problem.message.startswith("Type check:") and 'unknown field "colour"' in problem.message
    assert problem.line == text.splitlines().index("            colour: blue") + 1


def test_an_unknown_node_type_is_an_error_on_its_line_when_every_import_is_known(
    parse_text, simple_template
):
    text = simple_template.replace("type: tosca.nodes.indigo.Compute", "type: tosca.nodes.Nope")
    parsed = parse_text(text)
    (problem,) = parsed.errors
    assert 'Type "tosca.nodes.Nope" is defined in none of the type libraries' in problem.message
    assert problem.line == text.splitlines().index("      type: tosca.nodes.Nope") + 1


def test_an_unknown_node_type_is_a_warning_on_its_line_under_a_stand_in_library(
    parse_text, simple_template
):
    # A commit the portal holds no copy of: the newest library stands in, and may lack types.
    text = simple_template.replace(
        "type: tosca.nodes.indigo.Compute", "type: tosca.nodes.Nope"
    ).replace("tosca-types/master/", "tosca-types/0123abcd/")
    parsed = parse_text(text)
    assert parsed.errors == []
    (problem,) = [w for w in parsed.warnings if "is not a valid type" in w.message]
    assert 'Type "tosca.nodes.Nope" is not a valid type.' in problem.message
    assert problem.line == text.splitlines().index("      type: tosca.nodes.Nope") + 1


def test_imports_no_library_holds_leave_types_unchecked_but_publishable(
    parse_text, simple_template
):
    text = simple_template.replace(MASTER, "https://example.org/types.yaml")
    parsed = parse_text(text)
    assert parsed.errors == [] and parsed.unresolved_imports == ["https://example.org/types.yaml"]
    (warning,) = parsed.warnings
    assert "types were not checked" in warning.message and "not downloaded" in warning.message
    assert warning.line == text.splitlines().index("imports:") + 2
    names = [spec.name for spec in parsed.inputs]
    assert names == ["num_cpus", "mem_size", "ssh_public_key", "ports"]


@pytest.mark.parametrize("target", ["/etc/passwd", "file:///etc/passwd", "../secret.yaml"])
def test_local_file_imports_are_never_read_and_refused(parse_text, simple_template, target):
    parsed = parse_text(simple_template.replace(MASTER, target))
    assert parsed.unresolved_imports == [target]
    (error,) = parsed.errors
    assert f"({target}) is not an absolute URL" in error.message


def test_a_template_that_only_validates_against_an_older_library_keeps_its_named_library(
    parse_text, simple_template
):
    text = simple_template.replace(
        "    simple_node:\n      type: tosca.nodes.indigo.Compute\n",
        "    simple_node:\n      type: tosca.nodes.indigo.Compute\n"
        "      properties:\n        zabbix_server: example.org\n",
    )
    parsed = parse_text(text)
    assert parsed.errors == [] and parsed.types_version == "indigo-2025-08"
    (warning,) = parsed.warnings
    assert 'contains unknown field "zabbix_server"' in warning.message
    pinned = parse_text(text, "types_version: indigo-v4.0.1\n")
    assert pinned.types_version == "indigo-2025-08"
    assert any("answers for none of the template's imports" in w.message for w in pinned.warnings)


def test_an_unknown_pinned_library_is_a_sidecar_error(parse_text, simple_template):
    problem = parse_text(simple_template, "types_version: indigo-1999\n").errors[0]
    assert problem.source == "sidecar" and "indigo-1999" in problem.message


def test_shipped_libraries_answer_for_their_branches_and_tags(types_dir):
    libraries = from_folder(types_dir)
    assert libraries.names() == ["indigo-2025-08", "indigo-v4.0.1"]
    assert libraries.resolve(MASTER).library.name == "indigo-2025-08"
    assert libraries.resolve(MASTER.replace("master", "v4.0.1")).library.name == "indigo-v4.0.1"
    # Any other ref (a commit) is answered by the newest library.
    unknown = libraries.resolve(MASTER.replace("master", "abc123"))
    assert unknown.library.name == "indigo-2025-08" and unknown.path == "custom_types.yaml"
    assert libraries.resolve("https://example.org/custom_types.yaml") is None


def test_a_get_input_of_an_undefined_input_blocks_publishing_with_its_line(
    parse_text, simple_template
):
    text = simple_template.replace("{ get_input: mem_size }", "{ get_input: memory }")
    (problem,) = parse_text(text).errors
    assert "get_input: memory names an input the template does not define" in problem.message
    assert problem.line == next(
        n for n, line in enumerate(text.splitlines(), 1) if "get_input: memory" in line
    )


def test_find_line_prefers_the_path_naming_most_quoted_words():
    lines = {("t", "nodes", "a"): 3, ("t", "nodes", "a", "properties", "x"): 5, ("x",): 1}
    assert find_line('"properties" of template "a" contains unknown field "x"', lines) == 5
    assert find_line('"True" is not a string.', {}, "a: 1\nb: true\n") == 2


def test_bad_yaml_becomes_an_error_with_its_line_not_an_exception(parse_text):
    parsed = parse_text("a: 1\nb: !!python/object/apply:os.system [ls]\n")
    assert parsed.errors[0].line == 2 and "only plain YAML data" in parsed.errors[0].message


def test_a_default_that_breaks_its_own_constraints_leaves_the_input_to_be_chosen(
    parse_text, simple_template
):
    parsed = parse_text(simple_template.replace("default: 1\n", "default: 3\n", 1))
    assert parsed.errors == []
    (warning,) = parsed.warnings
    assert warning.message.startswith('Input "num_cpus": its default 3 breaks its own constraints')
    assert "Must be one of: 1, 2, 4." in warning.message and warning.line == 14
    spec = parsed.input("num_cpus")
    assert (spec.has_default, spec.default, spec.required) == (False, None, True)
    assert spec.refused_default == 3
    assert ParsedTemplate.from_json(parsed.to_json()).input("num_cpus").refused_default == 3


def test_a_default_of_the_wrong_type_is_still_an_error(parse_text, simple_template):
    parsed = parse_text(simple_template.replace("default: 1\n", "default: many\n", 1))
    assert parsed.errors[0].message.startswith("Input \"num_cpus\": its default 'many' is not")
    assert parsed.errors[0].line == 14


def test_parsed_templates_round_trip_through_json(parse_text, simple_template):
    parsed = parse_text(simple_template, "presets: [{name: A, values: {num_cpus: 2}}]\n")
    assert ParsedTemplate.from_json(parsed.to_json()) == parsed
    with pytest.raises(ValueError, match="format"):
        ParsedTemplate.from_json('{"format": 0}')


# --- sidecar metadata ----------------------------------------------------------------------

TOSCA = {
    "description": "From TOSCA.\n",
    "metadata": {
        "display_name": "Display",
        "template_name": "tpl",
        "tags": "a, b",
        "icon": "vm.svg",
    },
}


def metadata(sidecar=None, tosca=TOSCA, icons=None):
    return read_metadata(
        "my-app",
        tosca,
        sidecar,
        input_names={"num_cpus", "mem"},
        output_names={"ip"},
        limits=Limits(),
        icons=icons,
    )


def test_without_a_sidecar_everything_falls_back_to_the_template():
    meta, errors, _warnings = metadata()
    assert errors == []
    assert (meta.name, meta.description, meta.tags, meta.icon) == (
        "Display",
        "From TOSCA.",
        ["a", "b"],
        "vm.svg",
    )


def test_name_falls_back_to_template_name_then_the_slug():
    assert metadata(tosca={"metadata": {"template_name": "tpl"}})[0].name == "tpl"
    assert metadata(tosca={})[0].name == "My app"


def test_icon_must_be_a_known_file():
    assert metadata(icons={"other.svg"})[0].icon is None
    meta, errors, _ = metadata("icon: missing.svg\n", icons={"vm.svg"})
    assert meta.icon == "vm.svg" and 'Icon "missing.svg"' in errors[0].message


def test_the_sidecar_wins_over_the_template():
    meta, errors, _ = metadata("name: Mine\ndescription: Plain.\ntags: [x]\nicon: vm.svg\n")
    assert errors == [] and (meta.name, meta.description, meta.tags) == ("Mine", "Plain.", ["x"])


@pytest.mark.parametrize(
    ("sidecar", "message", "line"),
    [
        ("colour: red\n", 'unknown key "colour"', 1),
        ("inputs:\n  num_cpus: {widget: dial}\n", 'unknown widget "dial"', 2),
        ("inputs:\n  nope: {label: X}\n", 'Input settings for "nope"', 2),
        ("tabs:\n  - name: A\n    inputs: [num_cpus, nope]\n", 'Tab "A" names "nope"', 3),
        ("tabs:\n  - inputs: [num_cpus]\n", "Tab 1 has no name", 2),
        ("presets:\n  - name: P\n    values: {nope: 1}\n", 'Preset "P" sets "nope"', 3),
        ("outputs:\n  ip: {show: shout}\n", 'unknown show kind "shout"', 2),
        ("outputs:\n  nope: {show: copy}\n", 'Output settings for "nope"', 2),
        ("name: [1]\n", '"name" must be text', 1),
        ("name: x\nname: y\n", 'The key "name" appears twice', 2),
    ],
)
def test_sidecar_mistakes_are_reported_with_their_line(sidecar, message, line):
    _meta, errors, _ = metadata(sidecar)
    assert message in errors[0].message
    assert (errors[0].line, errors[0].source) == (line, "sidecar")


def test_tabs_put_unlisted_inputs_in_a_last_advanced_tab(parse_text, simple_template):
    parsed = parse_text(simple_template, "tabs: [{name: Basic, inputs: [num_cpus]}]\n")
    assert parsed.tabs == [
        {"name": "Basic", "inputs": ["num_cpus"]},
        {"name": "Advanced", "inputs": ["mem_size", "ssh_public_key", "ports"]},
    ]


def test_output_display_comes_from_the_sidecar(parse_text, simple_template):
    parsed = parse_text(simple_template, "outputs: {node_creds: {label: Login, show: secret}}\n")
    creds = next(o for o in parsed.outputs if o.name == "node_creds")
    assert (creds.label, creds.show) == ("Login", "secret")


def test_preset_values_are_checked_against_the_inputs(parse_text, simple_template):
    parsed = parse_text(simple_template, "presets: [{name: Huge, values: {num_cpus: 64}}]\n")
    assert parsed.errors[0].message == 'Preset "Huge" sets num_cpus to 64: Must be one of: 1, 2, 4.'


@pytest.mark.parametrize("version", ["0", "1.0", "1"])
def test_a_definitions_version_given_as_a_number_is_refused_naming_it(
    parse_text, simple_template, version
):
    text = simple_template.replace("tosca_simple_yaml_1_0", version, 1)
    (problem,) = parse_text(text).errors
    assert problem.line == 1
    assert problem.message.startswith(
        f"tosca_definitions_version {version} is not a TOSCA Simple Profile version"
    )


@pytest.mark.parametrize(
    "requirement", ["- host: simple_nod", "- host:\n            node: simple_nod"]
)
def test_a_requirement_naming_a_node_the_template_does_not_define_is_an_error_on_its_line(
    parse_text, simple_template, requirement
):
    text = simple_template.replace(
        "  outputs:\n",
        "    app:\n      type: tosca.nodes.SoftwareComponent\n      requirements:\n"
        f"        {requirement}\n\n  outputs:\n",
    )
    (problem,) = parse_text(text).errors
    assert 'requires host: "simple_nod", a node template the template does not define' in (
        problem.message
    )
    assert problem.line == next(
        n for n, line in enumerate(text.splitlines(), 1) if "- host" in line
    )
    assert parse_text(text.replace("simple_nod\n", "simple_node\n")).errors == []
