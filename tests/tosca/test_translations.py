"""A template's own words in other languages: the sidecar's ``translations`` block, read field by
field over the default-language words, and every mistake in it reported in words."""

import pytest
from flask import Flask
from flask_babel import Babel, force_locale

from app.tosca.parsed import ParsedTemplate
from app.tosca.translations import missing_words
from tests.fixtures.tosca import REPO

SIDECAR = """\
name: Small machine
description: A machine for tests.
tags: [compute, test]
tabs:
  - name: Basic
    inputs: [num_cpus, mem_size]
inputs:
  num_cpus: {label: Cores, help: How many cores.}
  mem_size: {label: Memory, help: How much memory., placeholder: 2 GB}
  ssh_public_key: {label: SSH key, pattern_message: One line.}
presets:
  - {name: Small, description: 1 core, values: {num_cpus: 1}}
  - {name: Large, description: 4 cores, values: {num_cpus: 4}}
outputs:
  node_ip: {label: IP address, show: copy}
  node_creds: {label: Credentials, show: secret}
"""

ITALIAN = """\
translations:
  it:
    name: Macchina piccola
    description: Una macchina per i test.
    tags: [calcolo, prova]
    tabs: {Basic: Base}
    inputs:
      num_cpus: {label: Core, help: Quanti core.}
      mem_size: {label: Memoria}
    presets:
      Small: {name: Piccola, description: 1 core}
    outputs:
      node_ip: {label: Indirizzo IP, description: Dove raggiungere la macchina.}
"""


@pytest.fixture
def babel_app():
    """A bare app that reads the portal's catalogues (for the portal's own tab names)."""
    app = Flask(__name__)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(REPO / "translations")
    Babel(app)
    with app.app_context():
        yield app


def _sidecar_errors(parsed) -> list[str]:
    return [p.message for p in parsed.errors if p.source == "sidecar"]


def test_an_italian_reader_gets_the_italian_words_and_an_english_one_the_english(
    parse_text, simple_template, babel_app
):
    parsed = parse_text(simple_template, SIDECAR + ITALIAN)
    assert parsed.ok, parsed.errors

    with force_locale("it"):
        italian = parsed.localised()
    with force_locale("en"):
        english = parsed.localised()

    assert (italian.name, italian.description) == ("Macchina piccola", "Una macchina per i test.")
    assert italian.tags == ["calcolo", "prova"]
    assert italian.input("num_cpus").label == "Core"
    assert italian.input("num_cpus").help == "Quanti core."
    assert italian.presets[0]["name"] == "Piccola"
    assert italian.outputs[0].label == "Indirizzo IP"
    assert italian.outputs[0].description == "Dove raggiungere la macchina."
    assert (english.name, english.tags) == ("Small machine", ["compute", "test"])
    assert english.input("num_cpus").label == "Cores"
    assert english.presets[0]["name"] == "Small"
    # The values stay the same in every language.
    assert italian.presets[0]["values"] == english.presets[0]["values"] == {"num_cpus": 1}


def test_a_word_missing_in_italian_falls_back_to_english_field_by_field(
    parse_text, simple_template, babel_app
):
    italian = parse_text(simple_template, SIDECAR + ITALIAN).localised("it")

    memory = italian.input("mem_size")
    assert (memory.label, memory.help, memory.placeholder) == (
        "Memoria",
        "How much memory.",
        "2 GB",
    )
    assert italian.input("ssh_public_key").label == "SSH key"
    assert italian.input("ssh_public_key").pattern_message == "One line."
    assert italian.presets[1] == {
        "name": "Large",
        "description": "4 cores",
        "values": {"num_cpus": 4},
    }
    assert italian.outputs[1].label == "Credentials"


def test_the_tabs_are_named_in_italian_and_the_portals_own_tab_too(
    parse_text, simple_template, babel_app
):
    italian = parse_text(simple_template, SIDECAR + ITALIAN).localised("it")
    assert [tab["name"] for tab in italian.tabs] == ["Base", "Avanzate"]
    assert [tab["inputs"] for tab in italian.tabs] == [
        ["num_cpus", "mem_size"],
        ["ssh_public_key", "ports"],
    ]
    untabbed = parse_text(simple_template, "name: No tabs\n").localised("it")
    assert [tab["name"] for tab in untabbed.tabs] == ["Impostazioni"]
    assert [tab["name"] for tab in untabbed.localised("en").tabs] == ["Settings"]


def test_the_translations_survive_storage_and_each_language_is_built_once(
    parse_text, simple_template, babel_app
):
    stored = ParsedTemplate.from_json(parse_text(simple_template, SIDECAR + ITALIAN).to_json())
    first = stored.localised("it")
    assert first.name == "Macchina piccola"
    assert stored.localised("it") is first
    # Asking a localised copy for another language starts from the stored words again.
    assert first.localised("en").name == "Small machine"
    assert stored.name == "Small machine"


def test_outside_a_request_the_template_reads_as_stored(parse_text, simple_template):
    parsed = parse_text(simple_template, SIDECAR + ITALIAN)
    assert parsed.localised() is parsed


def test_the_toscas_own_metadata_may_carry_an_italian_name_and_description(
    parse_text, simple_template, babel_app
):
    template = simple_template.replace(
        "  display_name: Simple node\n",
        "  display_name: Simple node\n"
        "  display_name_it: Nodo semplice\n"
        "  description_it: Una piccola macchina virtuale.\n"
        "  tags_it: calcolo, prova\n",
    )
    italian = parse_text(template).localised("it")
    assert (italian.name, italian.description) == (
        "Nodo semplice",
        "Una piccola macchina virtuale.",
    )
    assert italian.tags == ["calcolo", "prova"]
    # The sidecar's Italian wins over the template's.
    assert parse_text(template, SIDECAR + ITALIAN).localised("it").name == "Macchina piccola"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            "translations:\n  italian: {name: Macchina}\n",
            'Translations: "italian" is not a language code; write the code in lower case, '
            "such as en, it.",
        ),
        (
            "translations:\n  it: Macchina\n",
            'Translations "it" must be a mapping of keys to values.',
        ),
        (
            "translations:\n  it: {title: Macchina}\n",
            'Translations "it": unknown key "title" (known: name, description, tags, tabs, '
            "inputs, presets, outputs).",
        ),
        ("translations:\n  it: {name: [Macchina]}\n", 'Translations "it": "name" must be text.'),
        ("translations: [it]\n", 'The sidecar: "translations" must be a mapping.'),
        (
            "translations:\n  it: {inputs: {num_gpus: {label: GPU}}}\n",
            'Translations "it" names the input "num_gpus", which the template does not have.',
        ),
        (
            "translations:\n  it: {tabs: {Expert: Esperto}}\n",
            'Translations "it" names the tab "Expert", which the template does not have.',
        ),
        (
            "translations:\n  it: {presets: {Huge: {name: Enorme}}}\n",
            'Translations "it" names the preset "Huge", which the template does not have.',
        ),
        (
            "translations:\n  it: {outputs: {kubeconfig: {label: kubeconfig}}}\n",
            'Translations "it" names the output "kubeconfig", which the template does not have.',
        ),
        (
            "translations:\n  it: {inputs: {num_cpus: {label: 4}}}\n",
            'Translations "it": Input "num_cpus": "label" must be text.',
        ),
        (
            "translations:\n  it: {inputs: {num_cpus: {widget: slider}}}\n",
            'Translations "it": Input "num_cpus": unknown key "widget" '
            "(known: label, help, placeholder, pattern_message).",
        ),
        (
            "translations:\n  it: {presets: {Small: {values: {num_cpus: 2}}}}\n",
            'Translations "it": Preset "Small": unknown key "values" (known: name, description).',
        ),
        (
            "translations:\n  it: {outputs: {node_ip: {show: link}}}\n",
            'Translations "it": Output "node_ip": unknown key "show" (known: label, description).',
        ),
        (
            "translations:\n  it: {tabs: {Basic: [Base]}}\n",
            'Translations "it": the name of tab "Basic" must be text.',
        ),
    ],
)
def test_a_bad_translations_block_is_refused_in_words_at_its_line(
    parse_text, simple_template, block, message
):
    parsed = parse_text(simple_template, SIDECAR + block)
    assert message in _sidecar_errors(parsed)
    problem = next(p for p in parsed.errors if p.message == message)
    assert problem.line and problem.line > SIDECAR.count("\n")
    assert not parsed.ok


def test_a_language_the_portal_does_not_speak_is_kept_with_a_warning(parse_text, simple_template):
    parsed = parse_text(simple_template, SIDECAR + "translations:\n  fr: {name: Petite machine}\n")
    assert parsed.ok
    assert [w.message for w in parsed.warnings if w.source == "sidecar"] == [
        'Translations "fr": the portal does not speak this language (it speaks en, it), '
        "so nobody sees these words."
    ]
    assert parsed.translations["fr"]["name"] == "Petite machine"


def test_the_words_still_missing_in_a_language_are_listed(parse_text, simple_template):
    parsed = parse_text(simple_template, SIDECAR + ITALIAN)
    assert missing_words(parsed, "it") == [
        "inputs.mem_size.help",
        "inputs.mem_size.placeholder",
        "inputs.ssh_public_key.label",
        "inputs.ssh_public_key.help",
        "inputs.ssh_public_key.pattern_message",
        "inputs.ports.label",
        "presets.Large.name",
        "presets.Large.description",
        "outputs.node_creds.label",
    ]
