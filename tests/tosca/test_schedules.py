"""A Chronos schedule chosen as a person would, sent as the ISO 8601 repeating interval the
template expects, and told back in plain words."""

from datetime import datetime
from pathlib import Path

import pytest
from flask import Flask
from flask_babel import Babel
from werkzeug.datastructures import MultiDict

from app.catalogue.forms import build_form_class, field_name
from app.tosca.parsed import parse_template
from app.tosca.schedules import parse_schedule

CATALOGUE = Path(__file__).resolve().parents[2] / "tosca-catalog"


@pytest.fixture(scope="module")
def babel_app():
    app = Flask(__name__)
    app.config.update(SECRET_KEY="test", WTF_CSRF_ENABLED=False, TESTING=True)
    Babel(app)
    return app


@pytest.fixture(scope="module")
def job_form():
    parsed = parse_template(
        "chronos-gpu-job",
        (CATALOGUE / "chronos-gpu-job.yaml").read_text(),
        (CATALOGUE / "chronos-gpu-job.portal.yaml").read_text(),
        types_dir=CATALOGUE / "types",
    )
    assert parsed.errors == []
    return build_form_class(parsed)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("R1//P1D", "Once, now"),
        ("R1/2026-11-26T02:00:00Z/P1D", "Once, on Nov 26, 2026, 02:00 UTC"),
        ("R/2026-11-26T02:00:00Z/P1D", "Every day at 02:00 UTC, until deleted, from 26 Nov 2026"),
        ("R10//PT6H", "Every 6 hours, 10 times, starting now"),
        ("R10/2026-11-26T02:00:00Z/PT6H", "Every 6 hours, 10 times, from Nov 26, 2026, 02:00 UTC"),
    ],
)
def test_a_schedule_reads_in_plain_words_and_is_sent_unchanged(babel_app, text, words):
    with babel_app.app_context():
        schedule = parse_schedule(text)
        assert schedule.describe() == words
    assert schedule.iso() == text


def test_the_next_run_follows_the_schedule_and_ends_with_it():
    schedule = parse_schedule("R3/2026-11-26T02:00:00Z/PT6H")
    submitted = datetime(2026, 11, 25, 9, 0)
    assert schedule.next_run(submitted, datetime(2026, 11, 25, 10)) == datetime(2026, 11, 26, 2)
    assert schedule.next_run(submitted, datetime(2026, 11, 26, 3)) == datetime(2026, 11, 26, 8)
    assert schedule.next_run(submitted, datetime(2026, 11, 26, 15)) is None  # 3 runs done
    forever = parse_schedule("R//P1D")
    assert forever.next_run(submitted, datetime(2026, 12, 25, 10)) == datetime(2026, 12, 26, 9)


def post(babel_app, job_form, **controls):
    name = field_name("schedule")
    data = MultiDict({field_name("command"): "python train.py"})
    for part, value in controls.items():
        data[f"{name}-{part}"] = value
    with babel_app.test_request_context(method="POST", data=data):
        form = job_form()
        valid = form.validate()
        sent = form.to_parameters().get("schedule") if valid else None
        return sent, form.errors.get(name), form


@pytest.mark.parametrize(
    ("controls", "sent"),
    [
        ({"how": "now"}, "R1//P1D"),
        ({"how": "once", "start": "2026-11-26T02:00"}, "R1/2026-11-26T02:00:00Z/P1D"),
        (
            {"how": "repeat", "start": "2026-11-26T02:00", "every": "1", "unit": "days"},
            "R/2026-11-26T02:00:00Z/P1D",
        ),
        (
            {
                "how": "repeat",
                "start": "2026-11-26T02:00",
                "every": "6",
                "unit": "hours",
                "times": "10",
            },
            "R10/2026-11-26T02:00:00Z/PT6H",
        ),
        ({"how": "repeat", "every": "2", "unit": "weeks", "times": "3"}, "R3//P14D"),
    ],
)
def test_the_controls_send_the_iso_interval_the_template_expects(
    babel_app, job_form, controls, sent
):
    assert post(babel_app, job_form, **controls)[:2] == (sent, None)


@pytest.mark.parametrize(
    ("controls", "message"),
    [
        ({"how": "once"}, "Needs the date and time of its run."),
        ({"how": "repeat", "every": "", "unit": "days"}, "Needs how often it repeats"),
        ({"how": "repeat", "every": "1", "unit": "days", "times": "0"}, "Needs 1 or more times"),
        ({"how": "repeat", "every": "9" * 10_000, "unit": "days"}, "numbers here have at most 30"),
        ({"how": "once", "start": "next tuesday"}, "The start is not a date and time."),
    ],
)
def test_incomplete_controls_are_refused_in_words_keeping_what_was_typed(
    babel_app, job_form, controls, message
):
    sent, errors, form = post(babel_app, job_form, **controls)
    assert sent is None and message in errors[0]
    html = str(form[field_name("schedule")]())
    for part, value in controls.items():
        if part != "how" and len(value) < 100:
            assert f'value="{value}"' in html


def test_a_stored_schedule_fills_the_controls_back(babel_app, job_form):
    field = job_form.input_fields["schedule"]
    shown = field.to_form("R10/2026-11-26T02:00:00Z/PT6H")
    assert shown == {
        "how": "repeat",
        "start": datetime(2026, 11, 26, 2, 0),
        "every": 6,
        "unit": "hours",
        "times": 10,
    }
    assert field.to_tosca(shown) == "R10/2026-11-26T02:00:00Z/PT6H"


def test_a_preset_sets_every_control_of_the_schedule(babel_app):
    from app.catalogue.forms import presets_data
    from app.tosca.parsed import parse_template as parse

    parsed = parse(
        "chronos-gpu-job",
        (CATALOGUE / "chronos-gpu-job.yaml").read_text(),
        (CATALOGUE / "chronos-gpu-job.portal.yaml").read_text(),
        types_dir=CATALOGUE / "types",
    )
    with babel_app.app_context():
        presets = {preset["name"]: preset["values"] for preset in presets_data(parsed)}
    name = field_name("schedule")
    assert {k: v for k, v in presets["Daily training"].items() if k.startswith(name)} == {
        f"{name}-how": "repeat",
        f"{name}-start": "",
        f"{name}-every": "1",
        f"{name}-unit": "days",
        f"{name}-times": "",
    }
    assert presets["Quick test"][f"{name}-how"] == "now"
