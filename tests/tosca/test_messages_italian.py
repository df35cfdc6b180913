"""Every kind of message a researcher meets on the launch form, and the words that describe a
value, in English and in Italian: whole sentences, named values, plural forms for 1 and 2."""

from pathlib import Path

import pytest
from flask import Flask
from flask_babel import Babel, force_locale
from werkzeug.datastructures import MultiDict

from app.catalogue.forms import build_form_class, field_name
from app.tosca.inputs import field_for
from app.tosca.inputs.limits import too_long
from app.tosca.parsed import ParsedTemplate
from app.tosca.schedules import parse_schedule
from app.tosca.units import format_size

TRANSLATIONS = Path(__file__).resolve().parents[2] / "translations"


@pytest.fixture(scope="module")
def app():
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY="test",
        WTF_CSRF_ENABLED=False,
        TESTING=True,
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS),
    )
    Babel(app)
    return app


def both(app, say):
    """What ``say()`` returns for an English reader and for an Italian one."""
    with app.test_request_context():
        english = say()
        with force_locale("it"):
            return english, say()


LIST = {"entry_schema": {"type": "string"}}
CASES = [
    # out of range
    (
        ("count", "integer", {"constraints": [{"in_range": [1, 8]}], "widget": "text"}),
        "9",
        "Must be between 1 and 8.",
        "Deve essere compreso tra 1 e 8.",
    ),
    # digit bounds
    (
        ("count", "integer", {"widget": "text"}),
        "9" * 40,
        "This is a number of 40 digits; numbers here have at most 30.",
        "Questo numero ha 40 cifre; qui i numeri ne hanno al massimo 30.",
    ),
    # size parsing
    (
        ("disk", "scalar-unit.size", {}),
        "4 XB",
        'Unit "XB" is not one of: B, kB, KiB, MB, MiB, GB, GiB, TB, TiB.',
        'L\'unità "XB" non è tra queste: B, kB, KiB, MB, MiB, GB, GiB, TB, TiB.',
    ),
    (
        ("disk", "scalar-unit.size", {}),
        "lots",
        "Must be a number followed by a unit, e.g. 4 GB (units: B, kB, KiB, MB, MiB, GB, GiB, "
        "TB, TiB).",
        "Deve essere un numero seguito da un'unità, per esempio 4 GB (unità: B, kB, KiB, MB, "
        "MiB, GB, GiB, TB, TiB).",
    ),
    # ports
    (
        ("ports", "list", {"entry_schema": {"type": "tosca.datatypes.indigo.network.PortSpec"}}),
        "99999/tcp",
        "Port 99999 is not between 1 and 65535.",
        "La porta 99999 non è compresa tra 1 e 65535.",
    ),
    (
        ("ports", "map", {"entry_schema": {"type": "tosca.datatypes.indigo.network.PortSpec"}}),
        "8080/tcp",
        'Port 1 needs a name, e.g. "http: 8080/tcp".',
        'La porta 1 richiede un nome, per esempio "http: 8080/tcp".',
    ),
    # the YAML editor (YAML's own description of the problem is quoted as it comes)
    (
        ("packages", "list", {}),
        "name: keras",
        "Must be a list in YAML.",
        "Deve essere un elenco in YAML.",
    ),
    # entries of a list, with plurals for 1 and 2
    (
        ("hosts", "list", {**LIST, "constraints": [{"min_length": 1}]}),
        "",
        "Must have at least 1 entry.",
        "Deve avere almeno 1 voce.",
    ),
    (
        ("hosts", "list", {**LIST, "constraints": [{"min_length": 2}]}),
        "a",
        "Must have at least 2 entries.",
        "Deve avere almeno 2 voci.",
    ),
    (
        ("hosts", "list", {**LIST, "constraints": [{"max_length": 1}]}),
        "a\nb",
        "Must have at most 1 entry.",
        "Deve avere al massimo 1 voce.",
    ),
    (
        ("code", "string", {"constraints": [{"max_length": 1}]}),
        "ab",
        "Must be at most 1 character long.",
        "Deve essere lungo al massimo 1 carattere.",
    ),
    (
        ("code", "string", {"constraints": [{"max_length": 2}]}),
        "abc",
        "Must be at most 2 characters long.",
        "Deve essere lungo al massimo 2 caratteri.",
    ),
    (
        ("counts", "list", {"entry_schema": {"type": "integer"}}),
        "1\nabc",
        'Entry 2 ("abc"): Must be a whole number.',
        'Voce 2 ("abc"): Deve essere un numero intero.',
    ),
    # patterns
    (
        ("user", "string", {"constraints": [{"pattern": "^[a-z]+$"}], "default": "ada"}),
        "Ada!",
        'Is not in the expected form; write it like "ada".',
        'Non è nella forma prevista; scrivilo come "ada".',
    ),
    # keys
    (
        ("ssh_public_key", "string", {}),
        "ssh-foo AAAA",
        'Key type "ssh-foo" is not one of: ssh-rsa, ssh-ed25519, ecdsa-sha2-nistp256...',
        'Il tipo di chiave "ssh-foo" non è tra questi: ssh-rsa, ssh-ed25519, '
        "ecdsa-sha2-nistp256...",
    ),
]


@pytest.mark.parametrize(("spec", "value", "english", "italian"), CASES)
def test_each_kind_of_refusal_reads_in_both_languages(
    app, make_spec, spec, value, english, italian
):
    name, type_name, extra = spec
    field = field_for(make_spec(name, type_name, **extra))
    said = both(app, lambda: field.check(value)[1])
    assert said == ([english], [italian])


def post(app, parsed, data, locale):
    form_class = build_form_class(parsed)
    with app.test_request_context(method="POST", data=MultiDict(data)), force_locale(locale):
        form = form_class()
        form.validate()
        return {name: list(errors) for name, errors in form.errors.items()}


@pytest.mark.parametrize(
    ("locale", "required", "whole", "long"),
    [
        (
            "en",
            "This field is required.",
            "Type a whole number, such as 4.",
            "This is 5,000 characters long; the most this field takes is 4,096. Shorten it "
            "and send the form again.",
        ),
        (
            "it",
            "Questo campo è obbligatorio.",
            "Scrivi un numero intero, per esempio 4.",
            "Il testo è lungo 5.000 caratteri; questo campo ne accetta al massimo 4.096. "
            "Accorcialo e invia di nuovo il modulo.",
        ),
    ],
)
def test_the_forms_own_refusals_follow_the_readers_language(
    app, make_spec, locale, required, whole, long
):
    parsed = ParsedTemplate(
        "t",
        inputs=[
            make_spec("command", "string"),
            make_spec("count", "integer", widget="number"),
            make_spec("notes", "string", required=False),
        ],
    )
    errors = post(
        app,
        parsed,
        {field_name("command"): "", field_name("count"): "four", field_name("notes"): "x" * 5000},
        locale,
    )
    assert errors == {
        field_name("command"): [required],
        field_name("count"): [whole],
        field_name("notes"): [long],
    }
    with app.test_request_context(), force_locale(locale):
        assert too_long("x" * 5000, 4096) == long


def test_a_schedules_refusals_read_in_italian(app, make_spec):
    field = field_for(make_spec("schedule", "string", widget="schedule"))
    english, italian = both(app, lambda: field.check({"how": "once"})[1])
    assert english == ["Needs the date and time of its run."]
    assert italian == ["Richiede la data e l'ora dell'esecuzione."]
    english, italian = both(app, lambda: field.check("R0//P1D")[1])
    assert (english, italian) == (
        ["Must run at least once."],
        ["Deve essere eseguito almeno una volta."],
    )


@pytest.mark.parametrize(
    ("text", "english", "italian"),
    [
        ("R1//P1D", "Once, now", "Una volta, subito"),
        (
            "R1/2026-11-26T02:00:00Z/P1D",
            "Once, on Nov 26, 2026, 02:00 UTC",
            "Una volta, il 26 nov 2026, 02:00 UTC",
        ),
        (
            "R/2026-11-26T02:00:00Z/P1D",
            "Every day at 02:00 UTC, until deleted, from 26 Nov 2026",
            "Ogni giorno alle 02:00 UTC, finché non lo elimini, dal 26 nov 2026",
        ),
        (
            "R2/2026-11-26T02:00:00Z/P2W",
            "Every 2 weeks at 02:00 UTC, 2 times, from 26 Nov 2026",
            "Ogni 2 settimane alle 02:00 UTC, 2 volte, dal 26 nov 2026",
        ),
        (
            "R1/2026-11-26T02:00:00Z/PT1H",
            "Once, on Nov 26, 2026, 02:00 UTC",
            "Una volta, il 26 nov 2026, 02:00 UTC",
        ),
        (
            "R10//PT6H",
            "Every 6 hours, 10 times, starting now",
            "Ogni 6 ore, 10 volte, a partire da ora",
        ),
        ("R2//PT1H", "Every hour, 2 times, starting now", "Ogni ora, 2 volte, a partire da ora"),
        (
            "R//PT1M",
            "Every minute, until deleted, starting now",
            "Ogni minuto, finché non lo elimini, a partire da ora",
        ),
    ],
)
def test_schedules_read_in_plain_italian(app, text, english, italian):
    assert both(app, lambda: parse_schedule(text).describe()) == (english, italian)


def test_sizes_follow_the_readers_numbers(app):
    assert both(app, lambda: format_size(1_500_000_000)) == ("1.5 GB", "1,5 GB")
    assert both(app, lambda: format_size(8 * 10**9)) == ("8 GB", "8 GB")
    assert format_size(1_500_000_000) == "1.5 GB"  # outside the portal too


def test_yes_and_no_and_the_empty_choice_are_worded_at_reading_time(app, make_spec):
    switch = field_for(make_spec("gpu", "boolean", widget="select"))
    choice = field_for(make_spec("size", "string", required=False, choices=["s", "m"]))
    with app.test_request_context():
        options = switch.field_options()["choices"]
        empty = choice.field_options()["choices"][0]
        assert [str(o.label) for o in options] == ["(not set)", "Yes", "No"]
        with force_locale("it"):  # the same field, built once, read by an Italian
            assert [str(o.label) for o in options] == ["(non impostato)", "Sì", "No"]
            assert str(empty.label) == "(non impostato)"
