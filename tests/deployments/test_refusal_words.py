"""A refusal names the backend that refused: the orchestrator's words stay as they were, and
any other backend is named, in English and Italian, however later the problem is read."""

import pytest
from flask import Flask
from flask_babel import Babel, force_locale

from app.backends.base import Busy, Refused, Unavailable
from app.deployments.errors import NOT_DELETED, problem_of, problem_text
from tests.fixtures.tosca import REPO


@pytest.fixture
def babel_app():
    app = Flask(__name__)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(REPO / "translations")
    Babel(app)
    with app.test_request_context():
        yield app


def _told(error, service, language="en"):
    error.service = service
    with force_locale(language):
        return problem_text(problem_of(error, NOT_DELETED))


def test_the_orchestrators_refusals_keep_their_words(babel_app):
    assert _told(Unavailable(), "paas") == (
        "The orchestrator is not answering right now. The deployment was not deleted. Try "
        "again in a few minutes."
    )
    assert _told(Refused("no"), None).startswith("The orchestrator refused the request.")


@pytest.mark.parametrize(
    ("error", "english", "italian"),
    [
        (
            Unavailable(),
            "Infrastructure Manager is not answering right now.",
            "Infrastructure Manager non risponde in questo momento.",
        ),
        (
            Refused("bad template"),
            "Infrastructure Manager refused the request.",
            "Infrastructure Manager ha rifiutato la richiesta.",
        ),
        (
            Busy("Invalid State"),
            "The deployment is busy with another operation at Infrastructure Manager.",
            "Il deployment è impegnato in un'altra operazione presso Infrastructure Manager.",
        ),
    ],
)
def test_another_backends_refusal_names_it_in_both_languages(babel_app, error, english, italian):
    kept = problem_of(error, NOT_DELETED) | {"service": "im"}
    error.service = "im"
    assert problem_of(error, NOT_DELETED)["service"] == "im"
    assert problem_text(kept).startswith(english)
    assert "orchestrator" not in problem_text(kept)
    with force_locale("it"):
        assert problem_text(kept).startswith(italian)
        assert "orchestratore" not in problem_text(kept)
