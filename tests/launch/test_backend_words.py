"""What the launch tells about a backend comes from that backend's words: a template that runs on
the Infrastructure Manager never has its launch explained by the orchestrator."""

from types import SimpleNamespace

import pytest
from flask_babel import force_locale

from app.auth.models import User
from app.backends import registry
from app.deployments.status import Status
from app.extensions import db
from app.launch.checks import LaunchPending, check_pending
from app.launch.views import _launched_message

WHO = {"paas": "The orchestrator", "im": "The Infrastructure Manager"}
ITALIAN = {"paas": "L'orchestratore", "im": "L'Infrastructure Manager"}


@pytest.mark.parametrize("backend", ["paas", "im"])
def test_a_launch_not_confirmed_in_time_names_the_backend_it_went_to(app, backend):
    deployment = SimpleNamespace(
        status=Status.UNCONFIRMED, uuid=None, name="Mine", backend_words=registry.words(backend)
    )
    with app.test_request_context():
        said = _launched_message(deployment)
        with force_locale("it"):
            italian = _launched_message(deployment)
    assert said.startswith(f"{WHO[backend]} did not confirm the launch of Mine in time.")
    assert italian.startswith(f"{ITALIAN[backend]} non ha confermato in tempo l'avvio di Mine.")


@pytest.mark.parametrize("backend", ["paas", "im"])
def test_an_identical_launch_still_being_confirmed_names_the_backend_it_went_to(
    app, make_deployment, people, backend
):
    user_id = people.create("ada")
    make_deployment(user_id, status=Status.UNCONFIRMED, uuid=None, name="First")
    entry = SimpleNamespace(slug="test-notebook", backend_words=registry.words(backend))
    with app.test_request_context(), pytest.raises(LaunchPending) as pending:
        check_pending(db.session.get(User, user_id), entry, {"num_cpus": 2})
    who = "t" + WHO[backend][1:]
    assert f"\u201cFirst\u201d with the same settings is still being confirmed with {who};" in (
        pending.value.message
    )
