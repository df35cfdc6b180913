"""Labels for outputs the sidecar leaves unlabelled, and numbers among a form's choices and a
deployment's settings, in the reader's language."""

import pytest
from flask import Flask
from flask_babel import Babel, force_locale

from app.tosca.display import credential_parts, number_text, output_label, value_text
from tests.fixtures.tosca import REPO


@pytest.fixture
def babel_app():
    app = Flask(__name__)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(REPO / "translations")
    Babel(app)
    with app.test_request_context():
        yield app


@pytest.mark.parametrize(
    ("name", "english", "italian"),
    [
        ("node_creds", "Login credentials", "Credenziali di accesso"),
        ("jupyter_url", "Jupyter address", "Indirizzo di Jupyter"),
        ("master_ip", "Master IP address", "Indirizzo IP di Master"),
        ("ssh_vm_password", "SSH VM password", "Password di SSH VM"),
        ("url", "Address", "Indirizzo"),
        ("gpu_count", "GPU count", "GPU count"),  # the template's own words stay as written
    ],
)
def test_an_unlabelled_output_is_named_in_one_message(babel_app, name, english, italian):
    assert output_label(name) == english
    with force_locale("it"):
        assert output_label(name) == italian


def test_a_credentials_parts_are_named_in_the_readers_language(babel_app):
    credential = {"user": "ada", "token_type": "private_key", "token": "KEY"}
    assert [label for label, _ in credential_parts(credential)] == ["User name", "Private key"]
    with force_locale("it"):
        assert [label for label, _ in credential_parts(credential)] == [
            "Nome utente",
            "Chiave privata",
        ]


def test_numbers_take_the_readers_decimal_sign_and_no_grouping(babel_app):
    assert [number_text(v) for v in (2.0, 2.5, 4096, 0.25)] == ["2", "2.5", "4096", "0.25"]
    assert value_text("mem_gb", 1.5) == "1.5"
    with force_locale("it"):
        assert [number_text(v) for v in (2.0, 2.5, 4096, 0.25)] == ["2", "2,5", "4096", "0,25"]
        assert value_text("mem_gb", 1.5) == "1,5"


def test_outside_a_request_numbers_are_written_as_in_english():
    assert number_text(2.5) == "2.5"
