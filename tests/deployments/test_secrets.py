"""Secrets: typed ones are never kept, generated ones and secret outputs are kept sealed, shown
only to the owner, and never appear in plain text anywhere in the database."""

import json

import pytest
from sqlalchemy import text

from app.auth.models import User
from app.deployments import operations
from app.deployments.models import Deployment
from app.errors import NotFound
from app.extensions import db
from tests.deployments.conftest import PARAMETERS


def database_text(app) -> str:
    """Every value of every row of the deployment tables, as one text to search."""
    with app.app_context():
        rows = []
        for query in ("SELECT * FROM deployments", "SELECT * FROM deployment_events"):
            rows += [repr(tuple(row)) for row in db.session.execute(text(query))]
        return "\n".join(rows)


def reveal(emulated, user_id, deployment_id):
    with emulated.app.app_context():
        return operations.reveal_secrets(
            db.session.get(User, user_id), db.session.get(Deployment, deployment_id)
        )


def without_password():
    return {name: value for name, value in PARAMETERS.items() if name != "jupyter_password"}


def test_a_typed_password_is_sent_but_kept_nowhere(emulated):
    ada = emulated.user("ada")

    deployment_id = emulated.launch(ada)

    [held] = emulated.emulator.deployments()
    assert (
        emulated.emulator.submitted(held["uuid"])["parameters"]["jupyter_password"]
        == (PARAMETERS["jupyter_password"])
    )
    assert PARAMETERS["jupyter_password"] not in database_text(emulated.app)
    assert reveal(emulated, ada, deployment_id) == {}


def test_a_generated_password_is_kept_sealed_and_shown_to_its_owner(emulated):
    ada = emulated.user("ada")

    deployment_id = emulated.launch(ada, slug="secret-notebook", parameters=without_password())

    [held] = emulated.emulator.deployments()
    sent = emulated.emulator.submitted(held["uuid"])["parameters"]["jupyter_password"]
    assert len(sent) >= 20
    assert sent not in database_text(emulated.app)
    assert reveal(emulated, ada, deployment_id) == {"jupyter_password": sent}


def test_secret_outputs_are_sealed_when_the_deployment_completes(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    emulated.sync()

    [done] = emulated.emulator.deployments()
    credentials = done["outputs"]["node_creds"]
    row = emulated.row(deployment_id)
    assert row.status == "ready" and "node_creds" not in row.outputs
    assert "jupyter_endpoint" in row.outputs
    for value in credentials.values():
        assert str(value) not in database_text(emulated.app)
    assert json.loads(reveal(emulated, ada, deployment_id)["node_creds"]) == credentials


def test_forgetting_secrets_drops_them_for_good(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada, slug="secret-notebook", parameters=without_password())

    with emulated.app.app_context():
        operations.forget_secrets(
            db.session.get(User, ada), db.session.get(Deployment, deployment_id)
        )

    assert reveal(emulated, ada, deployment_id) == {}
    row = emulated.row(deployment_id)
    assert row.secrets_sealed is None and row.events[-1].source == "user"


@pytest.mark.parametrize("admin", [False, True])
def test_nobody_but_the_owner_can_reveal_secrets(emulated, admin):
    ada = emulated.user("ada")
    other = emulated.user("other", admin=admin)
    deployment_id = emulated.launch(ada, slug="secret-notebook", parameters=without_password())

    with pytest.raises(NotFound):
        reveal(emulated, other, deployment_id)
