"""Pages speak of each deployment's backend in that backend's own words, in the reader's
language, and of a backend the portal no longer knows in neutral ones."""

import pytest

from app.backends import registry
from app.backends.base import UNKNOWN_WORDS, Words
from app.clock import utcnow
from tests.deployments.test_pages_italian import ITALIAN, page

PHRASES = ("asked_from", "slow_to_answer", "heard_from", "said", "places_it")


def test_every_backend_has_a_whole_table_of_its_own_words(app):
    with app.test_request_context():
        tables = {name: registry.words(name) for name in registry.NAMES}
        assert all(isinstance(words, Words) for words in tables.values())
        for phrase in PHRASES:
            said = [str(getattr(words, phrase)) for words in tables.values()]
            assert all(said) and len(set(said)) == len(said), phrase
        assert registry.words("gone") is UNKNOWN_WORDS
        assert registry.label("gone") == "gone"


@pytest.mark.parametrize(
    ("backend", "headers", "expected"),
    [
        (
            "paas",
            {},
            (
                "From the orchestrator",
                "the orchestrator may take a few seconds",
                "Last heard from the orchestrator",
                "What the orchestrator said",
            ),
        ),
        (
            "im",
            {},
            (
                "From the Infrastructure Manager",
                "the Infrastructure Manager may take a few seconds",
                "Last heard from the Infrastructure Manager",
                "What the Infrastructure Manager said",
            ),
        ),
        (
            "im",
            ITALIAN,
            (
                "Dall&#39;Infrastructure Manager",
                "l&#39;Infrastructure Manager può impiegare qualche secondo",
                "Ultima risposta dell&#39;Infrastructure Manager",
                "Risposta dell&#39;Infrastructure Manager",
            ),
        ),
        (
            "gone",
            {},
            (
                "From the deployment service",
                "Last heard from it",
                "What the deployment service said",
            ),
        ),
    ],
)
def test_the_deployment_page_names_its_backend_in_that_backends_words(
    client, login_as, make_deployment, backend, headers, expected
):
    deployment_id = make_deployment(
        login_as(),
        backend=backend,
        status="failed",
        status_reason="Quota exceeded",
        checked_at=utcnow(),
    )
    html = page(client, f"/deployments/{deployment_id}", **headers)
    for words in expected:
        assert words in html, words
