"""What is wrong with a sidecar, told to an Italian admin in whole Italian sentences (the part
of the sidecar it is in included) and to an English one in the same English as ever; the words
are chosen when shown, so a revision saved by one is read by the other in their language."""

import pytest
from flask import Flask
from flask_babel import Babel, force_locale

from app.tosca.parsed import ParsedTemplate
from tests.fixtures.tosca import REPO

TOP_KEYS = (
    "name, icon, description, tags, types_version, visible_to, backend, tabs, inputs, presets, "
    "outputs, translations"
)


@pytest.fixture
def babel_app():
    app = Flask(__name__)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(REPO / "translations")
    Babel(app)
    with app.app_context():
        yield app


CASES = [
    (
        "colour: red\n",
        f'The sidecar: unknown key "colour" (known: {TOP_KEYS}).',
        f'Il sidecar: chiave "colour" sconosciuta (quelle valide sono: {TOP_KEYS}).',
    ),
    (
        "tabs: [{inputs: [num_cpus]}]\n",
        "Tab 1 has no name.",
        "La scheda 1 non ha un nome.",
    ),
    (
        "tabs: [{name: Basic, inputs: [num_cpus]}, {name: 4, inputs: []}]\n",
        'Tab 2: "name" must be text.',
        'Scheda 2: "name" deve essere un testo.',
    ),
    (
        "tabs: [{name: Basic, inputs: [nope]}]\n",
        'Tab "Basic" names "nope", which is not an input.',
        'Scheda "Basic": indica "nope", che non è un input.',
    ),
    (
        "presets: [{name: Small, values: {nope: 1}}]\n",
        'Preset "Small" sets "nope", which is not an input.',
        'La configurazione predefinita "Small" imposta "nope", che non è un input.',
    ),
    (
        "inputs: {num_cpus: {widget: dial}}\n",
        'Input "num_cpus": unknown widget "dial" (known: text, textarea, select, radio, number, '
        "slider, password, checkbox, schedule).",
        'Input "num_cpus": widget "dial" sconosciuto (quelli validi sono: text, textarea, '
        "select, radio, number, slider, password, checkbox, schedule).",
    ),
    (
        "inputs: {num_cpus: {hidden: maybe}}\n",
        'Input "num_cpus": "hidden" must be true or false.',
        'Input "num_cpus": "hidden" deve essere true o false.',
    ),
    (
        "outputs: {node_ip: {show: banner}}\n",
        'Output "node_ip": unknown show kind "banner" (known: link, copy, secret, ssh, download).',
        'Output "node_ip": tipo di visualizzazione "banner" sconosciuto (quelli validi sono: '
        "link, copy, secret, ssh, download).",
    ),
    (
        "translations:\n  it: {inputs: {num_cpus: {label: 4}}}\n",
        'Translations "it": Input "num_cpus": "label" must be text.',
        'Traduzioni "it": input "num_cpus": "label" deve essere un testo.',
    ),
    (
        "translations:\n  it: {presets: {Huge: {name: Enorme}}}\n",
        'Translations "it" names the preset "Huge", which the template does not have.',
        'Traduzioni "it": indica la configurazione predefinita "Huge", che il template non ha.',
    ),
    (
        "translations:\n  Italian: {name: Macchina}\n",
        'Translations: "Italian" is not a language code; write the code in lower case, such as '
        "en, it.",
        'Traduzioni: "Italian" non è un codice di lingua; scrivi il codice in minuscolo, per '
        "esempio en, it.",
    ),
]


@pytest.mark.parametrize(("sidecar", "english", "italian"), CASES)
def test_a_sidecar_problem_reads_whole_in_english_and_in_italian(
    babel_app, parse_text, simple_template, sidecar, english, italian
):
    saved = parse_text(simple_template, sidecar)
    # As an admin reads it later: from the revision's stored judgment.
    stored = ParsedTemplate.from_json(saved.to_json())
    [problem] = [p for p in stored.errors if p.source == "sidecar" and p.message == english]

    assert problem.shown == english
    with force_locale("it"):
        assert problem.shown == italian


def test_a_language_the_portal_does_not_speak_is_warned_about_in_italian(
    babel_app, parse_text, simple_template
):
    parsed = parse_text(simple_template, "translations:\n  fr: {name: Petite machine}\n")
    [warning] = [w for w in parsed.warnings if w.source == "sidecar"]

    with force_locale("it"):
        assert warning.shown == (
            'Traduzioni "fr": il portale non è disponibile in questa lingua (lo è in en, it), '
            "quindi nessuno vede questi testi."
        )
    assert warning.shown == (
        'Translations "fr": the portal does not speak this language (it speaks en, it), so '
        "nobody sees these words."
    )
