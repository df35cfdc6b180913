"""The starter catalogue: every template deploys on INDIGO types and every sidecar holds together.

Templates are validated with tosca-parser against the local copy of the INDIGO types, never the
network; tosca-parser leaves input constraints unchecked, so defaults, presets and choices are
checked against them here.
"""

import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from toscaparser.dataentity import DataEntity
from toscaparser.elements.constraints import Constraint
from toscaparser.tosca_template import ToscaTemplate

CATALOGUE = Path(__file__).parents[2] / "tosca-catalog"
TYPES_URL = "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml"
LOCAL_TYPES = CATALOGUE / "types" / "indigo-2025-08" / "custom_types.yaml"
STARTERS = [
    "vm",
    "jupyter-vm",
    "jupyter-ml-gpu",
    "mesos-cluster",
    "kubernetes-cluster",
    "marathon-gpu-container",
    "chronos-gpu-job",
]
WIDGETS = {
    "text",
    "textarea",
    "select",
    "radio",
    "number",
    "slider",
    "password",
    "checkbox",
    "schedule",
}
SHOW_KINDS = {"link", "copy", "secret", "ssh", "download"}
SIDECAR_KEYS = {
    "name",
    "icon",
    "description",
    "tags",
    "types_version",
    "visible_to",
    "tabs",
    "inputs",
    "presets",
    "outputs",
    "translations",
}
INPUT_KEYS = {"label", "help", "widget", "choices", "placeholder", "generate", "hidden"}
# Values for inputs that are required and have no default, so tosca-parser sees a full launch.
SAMPLE_VALUES = {
    "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx5 researcher@laptop",
    "jupyter_password": "correct horse battery",
    "jupyter_token": "correct-horse-battery",
    "marathon_password": "correct horse battery",
    "mesos_password": "correct horse battery",
    "admin_token": "correct-horse-battery-staple",
    "command": "python train.py --epochs 10",
}
PRIMITIVES = {"string", "integer", "float", "boolean", "scalar-unit.size", "version"}


def load(slug: str, suffix: str = ".yaml") -> dict:
    return yaml.safe_load((CATALOGUE / f"{slug}{suffix}").read_text(encoding="utf-8"))


def inputs_of(slug: str) -> dict:
    return load(slug)["topology_template"].get("inputs") or {}


def outputs_of(slug: str) -> dict:
    return load(slug)["topology_template"].get("outputs") or {}


def constraint_errors(definition: dict, value) -> list[str]:
    """What tosca-parser's own constraint classes say about ``value`` for this input."""
    type_name = definition["type"]
    errors = []
    if type_name in PRIMITIVES:
        try:
            DataEntity.validate_datatype(type_name, value)
        except Exception as error:  # tosca-parser raises a handful of unrelated classes
            return [str(error)]
    for raw in definition.get("constraints") or []:
        try:
            Constraint("value", type_name, raw).validate(value)
        except Exception as error:
            errors.append(str(error))
    return errors


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("tosca-parser tried to reach the network")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def test_the_catalogue_holds_exactly_the_starter_templates():
    found = {p.name.removesuffix(".yaml") for p in CATALOGUE.glob("*.yaml")}
    found = {slug for slug in found if not slug.endswith(".portal")}
    assert found == set(STARTERS)


def test_the_local_types_are_the_ones_the_catalogue_validates_against():
    assert LOCAL_TYPES.is_file()


@pytest.mark.parametrize("slug", STARTERS)
def test_a_template_imports_the_indigo_types_by_url_as_real_templates_do(slug):
    template = load(slug)
    assert template["tosca_definitions_version"] == "tosca_simple_yaml_1_0"
    assert template["imports"] == [{"indigo_custom_types": TYPES_URL}]


@pytest.mark.parametrize("slug", STARTERS)
def test_a_template_uses_only_node_types_the_indigo_types_define(slug):
    defined = yaml.safe_load(LOCAL_TYPES.read_text(encoding="utf-8"))["node_types"]
    used = {node["type"] for node in load(slug)["topology_template"]["node_templates"].values()}
    assert all(name.startswith("tosca.nodes.indigo.") for name in used)
    assert used <= set(defined)


@pytest.mark.parametrize("slug", STARTERS)
def test_a_template_validates_with_tosca_parser_without_the_network(slug, no_network):
    template = load(slug)
    parameters = {k: v for k, v in SAMPLE_VALUES.items() if k in inputs_of(slug)}
    parsed = ToscaTemplate(
        yaml_dict_tpl=template,
        a_file=False,
        local_defs={TYPES_URL: str(LOCAL_TYPES)},
        parsed_params=parameters,
    )
    assert {node.name for node in parsed.nodetemplates} == set(
        template["topology_template"]["node_templates"]
    )


@pytest.mark.parametrize("slug", STARTERS)
def test_every_input_without_a_default_has_a_sample_value_or_is_optional(slug):
    for name, definition in inputs_of(slug).items():
        if "default" not in definition and definition.get("required", True):
            assert name in SAMPLE_VALUES, name


@pytest.mark.parametrize("slug", STARTERS)
def test_every_input_default_and_sample_value_meets_its_constraints(slug):
    for name, definition in inputs_of(slug).items():
        for value in (definition.get("default"), SAMPLE_VALUES.get(name)):
            if value is not None:
                assert constraint_errors(definition, value) == [], (name, value)


@pytest.mark.parametrize("slug", STARTERS)
def test_every_input_has_a_description_for_the_fallback_help(slug):
    assert all(d.get("description") for d in inputs_of(slug).values())


@pytest.mark.parametrize("slug", STARTERS)
def test_a_sidecar_uses_only_the_documented_keys(slug):
    sidecar = load(slug, ".portal.yaml")
    assert set(sidecar) <= SIDECAR_KEYS
    assert isinstance(sidecar["name"], str) and sidecar["name"]
    assert isinstance(sidecar["description"], str) and "\n" not in sidecar["description"]
    assert isinstance(sidecar["tags"], list) and sidecar["tags"]
    assert all(isinstance(group, str) for group in sidecar["visible_to"])
    for settings in sidecar.get("inputs", {}).values():
        assert set(settings) <= INPUT_KEYS
        assert settings.get("widget", "text") in WIDGETS


@pytest.mark.parametrize("slug", STARTERS)
def test_the_tabs_are_basic_then_advanced_and_place_every_input_once(slug):
    tabs = load(slug, ".portal.yaml")["tabs"]
    assert [tab["name"] for tab in tabs] == ["Basic", "Advanced"]
    placed = [name for tab in tabs for name in tab["inputs"]]
    assert len(placed) == len(set(placed))
    assert set(placed) == set(inputs_of(slug))


@pytest.mark.parametrize("slug", STARTERS)
def test_every_input_the_sidecar_names_exists_in_the_template(slug):
    sidecar, inputs = load(slug, ".portal.yaml"), inputs_of(slug)
    named = set(sidecar.get("inputs", {}))
    for preset in sidecar.get("presets", []):
        named |= set(preset["values"])
    assert named <= set(inputs)


@pytest.mark.parametrize("slug", STARTERS)
def test_every_output_is_shown_and_every_shown_output_exists(slug):
    shown = load(slug, ".portal.yaml").get("outputs") or {}
    assert set(shown) == set(outputs_of(slug))
    assert all(settings["show"] in SHOW_KINDS and settings["label"] for settings in shown.values())


@pytest.mark.parametrize("slug", STARTERS)
def test_presets_set_several_fields_to_values_the_constraints_accept(slug):
    inputs = inputs_of(slug)
    presets = load(slug, ".portal.yaml")["presets"]
    assert presets
    for preset in presets:
        assert preset["name"] and preset["description"]
        assert len(preset["values"]) >= 2
        for name, value in preset["values"].items():
            assert constraint_errors(inputs[name], value) == [], (preset["name"], name)


@pytest.mark.parametrize("slug", STARTERS)
def test_offered_choices_are_values_the_constraints_accept(slug):
    inputs = inputs_of(slug)
    for name, settings in (load(slug, ".portal.yaml").get("inputs") or {}).items():
        for choice in settings.get("choices", []):
            assert constraint_errors(inputs[name], choice) == [], (name, choice)


@pytest.mark.parametrize("slug", STARTERS)
def test_labels_and_help_speak_to_researchers_not_in_tosca_terms(slug):
    jargon = ("tosca", "scalar-unit", "get_input", "node_template", "capabilit", "entry_schema")
    for settings in (load(slug, ".portal.yaml").get("inputs") or {}).values():
        text = f"{settings.get('label', '')} {settings.get('help', '')}".lower()
        assert not any(word in text for word in jargon), text


def test_only_the_gpu_batch_job_is_restricted_to_a_group():
    restricted = {slug: load(slug, ".portal.yaml")["visible_to"] for slug in STARTERS}
    assert {slug: groups for slug, groups in restricted.items() if groups} == {
        "chronos-gpu-job": ["gpu-users"]
    }


@pytest.mark.parametrize("slug", STARTERS)
def test_the_icon_is_a_small_self_contained_svg(slug):
    icon = CATALOGUE / "icons" / load(slug, ".portal.yaml")["icon"]
    assert icon.is_file()
    root = ET.parse(icon).getroot()  # noqa: S314 - the repository's own files, not uploads
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 48 48"
    text = icon.read_text(encoding="utf-8").lower()
    assert "<script" not in text and "foreignobject" not in text
    for element in root.iter():
        assert not element.tag.endswith("}script")
        for attribute, value in element.attrib.items():
            assert not attribute.lower().startswith("on"), attribute
            if attribute.endswith("href"):
                assert value.startswith("#"), value
    assert "url(http" not in text and "@import" not in text
