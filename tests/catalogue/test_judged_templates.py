"""Templates judged as the orchestrator judges them (tests/catalogue/corpus/judged, see its
README): a template's own defaults launch whatever their length, lists and maps without an
entry schema hold any YAML value, a misspelt type is an error when every import is known,
and a cost that cannot be counted is never shown as zero."""

import html
import re
from pathlib import Path

import pytest

from app.catalogue import operations
from app.catalogue.forms import build_form_class, field_name
from app.tosca.parsed import parse_template
from tests.catalogue.conftest import TYPES_DIR, form_data

JUDGED = Path(__file__).parent / "corpus" / "judged"


def parse(name: str):
    return parse_template("judged", (JUDGED / name).read_text(), types_dir=TYPES_DIR)


def defaults_validate(form_app, parsed, **typed) -> dict:
    """The form errors when the template's defaults (and ``typed`` values) are sent."""
    form_class = build_form_class(parsed)
    values = {spec.name: spec.default for spec in parsed.inputs if spec.has_default}
    values.update(typed)
    with form_app.test_request_context(method="POST", data=form_data(form_class, values)):
        form = form_class()
        form.validate()
        return {name: errors for name, errors in form.errors.items() if errors}


# --- a template's own default is never refused for length ----------------------------------


def test_a_helm_values_file_as_default_launches_as_it_stands_even_under_a_short_limit(form_app):
    parsed = parse("helm_values_default.yaml")
    [values] = [spec for spec in parsed.inputs if spec.name == "helm_values"]
    assert parsed.errors == [] and 1000 < len(values.default) < 2000
    form_app.config["INPUT_MAX_LENGTHS"] = {"string": 256, "text": 1024}
    try:
        with form_app.app_context():
            field = build_form_class(parsed).input_fields["helm_values"]
            assert field.widget == "textarea"  # several lines need room
            assert field.max_length == len(values.default)
        assert defaults_validate(form_app, parsed) == {}
        # Longer than both the limit and the default: still bounded.
        longer = values.default + "x" * 10
        errors = defaults_validate(form_app, parsed, helm_values=longer)
        assert "Shorten it" in errors[field_name("helm_values")][0]
    finally:
        form_app.config.pop("INPUT_MAX_LENGTHS")


def test_typed_text_limits_fit_a_cloud_init_script_and_a_kubeconfig(form_app, make_spec):
    from app.tosca.inputs import field_for

    with form_app.app_context():
        script = field_for(make_spec("cloud_init", "string", widget="textarea"))
        line = field_for(make_spec("name", "string"))
    assert script.max_length >= 32 * 1024  # a kubeconfig with its certificates, a long script
    assert 1024 < line.max_length < script.max_length


# --- lists and maps without entry_schema ----------------------------------------------------


def test_a_list_of_mappings_and_a_nested_map_without_entry_schema_are_valid(form_app):
    parsed = parse("list_of_mappings.yaml")
    assert parsed.errors == [] and parsed.unsupported == []
    with form_app.app_context():
        fields = build_form_class(parsed).input_fields
    assert fields["packages"].kind == fields["settings"].kind == "yaml"
    assert defaults_validate(form_app, parsed) == {}
    shown = fields["packages"].to_form([{"name": "keras"}, {"name": "torch", "version": "2.1"}])
    assert shown == "- name: keras\n- name: torch\n  version: '2.1'"


@pytest.mark.parametrize(
    ("name", "typed", "message"),
    [
        ("packages", "- name: [keras", "Is not valid YAML (line 1, column 15)"),
        ("packages", "name: keras", "Must be a list in YAML."),
        ("settings", "- a\n- b", "Must be a mapping in YAML."),
    ],
)
def test_bad_yaml_in_a_yaml_field_gets_a_clear_message_and_keeps_what_was_typed(
    form_app, name, typed, message
):
    parsed = parse("list_of_mappings.yaml")
    form_class = build_form_class(parsed)
    with form_app.test_request_context(method="POST", data={field_name(name): typed}):
        form = form_class()
        assert not form.validate()
        [error] = form.errors[field_name(name)]
        assert error.startswith(message)
        assert form[field_name(name)].data == typed


# --- unknown types --------------------------------------------------------------------------


def test_a_misspelt_indigo_type_is_an_error_when_every_import_is_known():
    parsed = parse("misspelt_type.yaml")
    [error] = parsed.errors
    assert 'Type "tosca.nodes.indigo.Comput" is defined in none of the type libraries' in (
        error.message
    )
    assert error.line == 18


def test_an_unknown_type_behind_an_unresolved_import_stays_a_warning():
    text = (Path(__file__).parent / "corpus" / "site-catalogue" / "unknown_types.yaml").read_text()
    parsed = parse_template("unknown", text, types_dir=TYPES_DIR)
    assert parsed.errors == []
    assert any("is in no type library" in w.message for w in parsed.warnings)


# --- what the cost box says -----------------------------------------------------------------


@pytest.fixture
def app(make_app):
    portal = make_app(ORCHESTRATOR_URL="demo")
    with portal.app_context():
        for slug in ("flavour-only", "elastic-cluster"):
            text = (JUDGED / f"{slug.replace('-', '_')}.yaml").read_text()
            revision = operations.save_revision(slug, text, "", "curator", create=True)
            assert revision.valid, revision.parsed
            operations.publish(slug, "curator", revision.number)
    return portal


def summary_of(page: str) -> str:
    box = page.split('id="launch-summary"', 1)[1].split("</div>\n</div>", 1)[0]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", box)))


def test_a_template_sized_by_an_unknown_flavour_says_it_cannot_be_counted(app, client, login_as):
    login_as("user", username="ada")
    box = summary_of(client.get("/catalogue/flavour-only/").get_data(as_text=True))
    assert "Cannot be counted" in box
    assert "cannot be counted: flavour 'm1.exotic' is unknown" in box
    assert "Machines 0" not in box and "CPU cores 0" not in box


def test_an_elastic_cluster_is_charged_at_its_maximum_and_says_so(app, client, login_as):
    login_as("user", username="ada")
    box = summary_of(client.get("/catalogue/elastic-cluster/").get_data(as_text=True))
    # The front end (2 cores) and five workers of 4 cores, not the 0 workers it starts with.
    assert "Machines 6" in box and "CPU cores 22" in box
    assert "node 'lrms_wn' starts with 0 and can grow to 5 machines; it is charged at 5" in box


# --- versions given as a single number ------------------------------------------------------


def test_a_version_given_as_a_single_number_is_valid_and_shown_as_written(form_app):
    parsed = parse("single_number_version.yaml")
    assert parsed.errors == [] and parsed.warnings == []
    with form_app.app_context():
        fields = build_form_class(parsed).input_fields
        version = fields["os_version"]
        assert version.check(version.spec.default) == ("7", [])  # sent as written
    form_class = build_form_class(parsed)
    with form_app.test_request_context():
        shown = str(form_class()[field_name("os_version")])
    assert '<option selected value="7">7</option>' in shown and '"8">8</option>' in shown
    assert defaults_validate(form_app, parsed) == {}
    assert (
        "Must be at least 3"
        in defaults_validate(form_app, parsed, minimum_kernel="2.9")[field_name("minimum_kernel")][
            0
        ]
    )


# --- keys indented with spaces YAML does not count ------------------------------------------


def test_an_output_indented_with_no_break_spaces_is_refused_naming_its_line():
    parsed = parse("nbsp_output.yaml")
    [error] = parsed.errors
    assert error.line == 24
    assert error.message.startswith(
        "Line 24 is indented with U+00A0, a space that YAML does not count as indentation"
    )
    assert 'the key "node_creds" is read outside the mapping it appears to be in' in (error.message)


def test_a_sidecar_key_indented_with_no_break_spaces_is_refused_naming_its_line():
    text = (JUDGED / "list_of_mappings.yaml").read_text()
    sidecar = "inputs:\n  packages:\n    label: Packages\n\u00a0\u00a0settings:\n    label: S\n"
    parsed = parse_template("judged", text, sidecar, types_dir=TYPES_DIR)
    [error] = parsed.errors
    assert error.source == "sidecar" and error.line == 4
    assert 'the key "settings" is read outside the mapping' in error.message
