"""Launch forms are assembled from parsed templates; parameters are checked the same way."""

from types import SimpleNamespace

import pytest

from app.catalogue.forms import (
    ParameterError,
    build_form_class,
    check_parameters,
    field_name,
    presets_data,
    tab_layout,
)
from tests.catalogue.conftest import form_data
from tests.tosca.test_inputs import ssh_key

SIDECAR = """\
name: Small VM
tabs:
  - name: Basic
    inputs: [num_cpus, mem_size]
inputs:
  num_cpus: {label: Cores, widget: radio}
  ports: {hidden: true}
presets:
  - name: Big
    description: four cores
    values: {num_cpus: 4, mem_size: 8 GB}
"""


@pytest.fixture
def parsed(parse_text, simple_template):
    result = parse_text(simple_template, SIDECAR.replace("  ports: {hidden: true}\n", ""))
    assert result.ok, result.errors
    return result


def test_a_valid_submission_gives_tosca_parameters(form_app, parsed):
    form_class = build_form_class(parsed)
    data = form_data(form_class, {"num_cpus": 2, "mem_size": "4GiB", "ssh_public_key": ssh_key()})
    data.add("ports", "http: 8080")
    with form_app.test_request_context(method="POST", data=data):
        form = form_class()
        assert form.validate(), form.errors
        assert form.to_parameters() == {
            "num_cpus": 2,
            "mem_size": "4 GiB",
            "ssh_public_key": ssh_key(),
            "ports": {"http": {"protocol": "tcp", "source": 8080}},
        }


def test_invalid_submissions_say_what_is_wrong_per_field(form_app, parsed):
    form_class = build_form_class(parsed)
    data = form_data(form_class, {"num_cpus": 3, "mem_size": "64 GB", "ssh_public_key": "nope"})
    with form_app.test_request_context(method="POST", data=data):
        form = form_class()
        assert not form.validate()
        assert form.errors["num_cpus"] == ["Not a valid choice."]
        assert form.errors["mem_size"] == ["Must be between 1 GB and 16 GB."]
        assert "SSH public key" in form.errors["ssh_public_key"][0]


def test_required_fields_must_be_filled_and_optional_ones_are_omitted(form_app, parsed):
    form_class = build_form_class(parsed)
    with form_app.test_request_context(method="POST", data={"num_cpus": "1", "mem_size": "2 GB"}):
        form = form_class()
        assert not form.validate()
        assert form.errors == {"ssh_public_key": ["This field is required."]}
    data = {"num_cpus": "1", "mem_size": "2 GB", "ssh_public_key": ssh_key(), "ports": ""}
    with form_app.test_request_context(method="POST", data=data):
        form = form_class()
        assert form.validate()
        assert "ports" not in form.to_parameters()


def test_fields_carry_kind_widget_labels_and_defaults_for_the_macros(form_app, parsed):
    with form_app.test_request_context():
        form = build_form_class(parsed)()
        assert form.num_cpus.field_kind == "integer" and form.num_cpus.input_widget == "radio"
        assert form.num_cpus.label.text == "Cores" and form.num_cpus.data == "1"
        assert form.mem_size.units[0] == "B" and form.mem_size.data == "2 GB"
        assert form.ssh_public_key.flags.required
        assert "required" in form.ssh_public_key()


def test_a_form_can_be_prefilled_from_stored_parameters(form_app, parsed):
    form_class = build_form_class(parsed)
    with form_app.test_request_context():
        form = form_class.prefilled({"num_cpus": 4, "ports": {"ssh": {"source": 22}}})
        assert form.num_cpus.data == "4"
        assert form.ports.data == "ssh: 22/tcp"


def test_form_classes_are_kept_per_revision_in_each_app(form_app, make_app, parsed):
    from app.launch.prefill import form_class

    entry = SimpleNamespace(revision_id=1, parsed=parsed)
    other = SimpleNamespace(revision_id=2, parsed=parsed)
    assert build_form_class(parsed) is not build_form_class(parsed)
    with form_app.app_context():
        kept = form_class(entry)
        assert form_class(entry) is kept and form_class(other) is not kept
    with make_app().app_context():
        assert form_class(entry) is not kept  # another app keeps its own


def test_tabs_and_presets_are_json_data(parsed):
    assert tab_layout(parsed) == [
        ("Basic", ["num_cpus", "mem_size"]),
        ("Advanced", ["ssh_public_key", "ports"]),
    ]
    assert presets_data(parsed) == [
        {"name": "Big", "description": "four cores", "values": {"num_cpus": 4, "mem_size": "8 GB"}},
    ]


def test_inputs_named_like_form_attributes_get_a_prefix():
    assert field_name("data") == "input_data" and field_name("num_cpus") == "num_cpus"


def test_check_parameters_accepts_valid_json_values(parsed):
    assert check_parameters(parsed, {"ssh_public_key": ssh_key(), "num_cpus": 4}) == {
        "ssh_public_key": ssh_key(),
        "num_cpus": 4,
    }


def test_check_parameters_lists_every_problem_per_input(parsed):
    with pytest.raises(ParameterError) as caught:
        check_parameters(
            parsed, {"num_cpus": "4", "mem_size": "99 GB", "colour": "red", "ports": {"x": 1}}
        )
    errors = caught.value.errors
    assert errors["colour"] == ["Unknown parameter: the template has no such input."]
    assert errors["ssh_public_key"] == ["This field is required."]
    assert errors["num_cpus"] == ["Must be a whole number."]
    assert errors["mem_size"] == ["Must be between 1 GB and 16 GB."]
    assert errors["ports"][0].startswith("A port must be a mapping")
    assert caught.value.status_code == 400 and "colour" in caught.value.message


def test_check_parameters_rejects_hidden_inputs_and_non_mappings(parse_text, simple_template):
    parsed = parse_text(simple_template, SIDECAR)
    assert "ports" not in build_form_class(parsed).input_fields
    with pytest.raises(ParameterError) as caught:
        check_parameters(parsed, {"ssh_public_key": ssh_key(), "ports": {}})
    assert caught.value.errors == {
        "ports": ["This input is fixed by the template and can't be set."]
    }
    with pytest.raises(ParameterError):
        check_parameters(parsed, ["not", "a", "mapping"])


def test_templates_with_errors_cannot_be_launched(parse_text):
    with pytest.raises(ParameterError, match="has errors"):
        check_parameters(parse_text("a: [\n"), {})


def test_a_required_field_shows_its_example_below_it_not_as_a_placeholder(
    form_app, parse_text, simple_template
):
    sidecar = (
        "name: Small VM\n"
        "inputs:\n"
        "  ssh_public_key: {help: Your public key., placeholder: ssh-ed25519 AAAA you@laptop}\n"
        "  ports: {placeholder: 'http: 8080'}\n"
    )
    parsed = parse_text(simple_template, sidecar)
    assert parsed.ok, parsed.errors
    with form_app.test_request_context():
        form = build_form_class(parsed)()
        required = form.ssh_public_key()
        assert "placeholder" not in required
        assert form.ssh_public_key.description == (
            "Your public key. For example: ssh-ed25519 AAAA you@laptop"
        )
        # An optional field may be left empty, so its placeholder misleads nobody.
        assert 'placeholder="http: 8080"' in form.ports()


def test_operating_systems_are_offered_by_name_and_sent_by_id(form_app, make_spec):
    from app.tosca.inputs import field_for

    spec = make_spec(
        "os_image", choices=["ubuntu-22.04", "rockylinux-9", "my-own-image"], default="ubuntu-22.04"
    )
    offered = field_for(spec).field_options()["choices"]
    assert [(choice.value, choice.label) for choice in offered] == [
        ("ubuntu-22.04", "Ubuntu 22.04 LTS"),
        ("rockylinux-9", "Rocky Linux 9"),
        ("my-own-image", "my-own-image"),
    ]
    # A value of an input that does not choose a system stays as written.
    assert field_for(make_spec("username", choices=["alma9"])).choice_label("alma9") == "alma9"


def test_a_missing_required_parameter_is_told_in_the_callers_language(parsed):
    from flask import Flask
    from flask_babel import Babel, force_locale

    from tests.fixtures.tosca import REPO

    app = Flask(__name__)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(REPO / "translations")
    Babel(app)

    def required_message():
        with pytest.raises(ParameterError) as caught:
            check_parameters(parsed, {"num_cpus": 2})
        return caught.value.errors["ssh_public_key"]

    with app.test_request_context():
        assert required_message() == ["This field is required."]
        with force_locale("it"):
            assert required_message() == ["Questo campo è obbligatorio."]


def test_an_input_whose_default_breaks_its_constraints_must_be_chosen_and_says_why(
    form_app, parse_text, simple_template
):
    parsed = parse_text(simple_template.replace("default: 2 GB", "default: 32 GB"))
    assert parsed.ok, parsed.errors
    form_class = build_form_class(parsed)
    data = form_data(form_class, {"num_cpus": 2, "ssh_public_key": ssh_key()})
    with form_app.test_request_context(method="POST", data=data):
        form = form_class()
        field = form[field_name("mem_size")]
        assert field.data in (None, "") and field.flags.required
        assert "own default, 32 GB, is outside what it allows: choose a value" in (
            field.description
        )
        assert not form.validate() and form.errors[field_name("mem_size")]
    data = form_data(form_class, {"num_cpus": 2, "mem_size": "4 GB", "ssh_public_key": ssh_key()})
    with form_app.test_request_context(method="POST", data=data):
        form = form_class()
        assert form.validate(), form.errors
        assert form.to_parameters()["mem_size"] == "4 GB"
