"""The sync worker settles, polls and adopts with every kind of identity configured: local
accounts alone, LDAP alone, an identity provider alone, and all of them together.

Each configuration runs on SQLite and on PostgreSQL: a query that SQLite took and PostgreSQL
refused once broke every listing of the portal's own identity, and only when no identity
provider was configured.
"""

import pytest
from sqlalchemy import select

from app.auth.identity import Identity
from app.auth.operations import record_identity
from app.backends.paas.client import OrchestratorClient
from app.deployments.models import Deployment, DeploymentListing
from app.extensions import db
from tests.deployments.conftest import SERVICE_TOKEN, TEMPLATE

LDAP_SETTINGS = {"label": "Institute account", "url": "ldap://127.0.0.1:9"}

# Settings laid over the ``emulated`` portal's, which configure one identity provider ("iam").
IDENTITY_SETUPS = {
    "local accounts": {"OIDC_PROVIDERS": [], "LDAP": None},
    "ldap": {"OIDC_PROVIDERS": [], "LDAP": LDAP_SETTINGS},
    "identity provider": {"LDAP": None},
    "all of them": {"LDAP": LDAP_SETTINGS},
}


@pytest.fixture(params=list(IDENTITY_SETUPS))
def identity_setup(request) -> str:
    return request.param


@pytest.fixture
def emulated_settings(emulated_settings, identity_setup):
    return {**emulated_settings, **IDENTITY_SETUPS[identity_setup]}


def served_person(emulated, name: str) -> int:
    """Someone the portal's own identity serves: an LDAP person where LDAP is configured (recorded
    the way their login records them), else a local account."""
    if not emulated.app.config["LDAP"]:
        return emulated.user(name)
    with emulated.app.app_context():
        identity = Identity(
            "ldap",
            f"uid={name},ou=people,dc=test",
            name,
            name.title(),
            f"{name}@example.org",
            ("physics",),
        )
        return record_identity(identity).id


def listing_failures(app) -> dict[str, int]:
    with app.app_context():
        return {row.identity: row.failures for row in db.session.scalars(select(DeploymentListing))}


def test_a_launch_whose_answer_was_lost_is_settled_by_the_listing(emulated):
    person = served_person(emulated, "ada")
    emulated.emulator.set_faults(lose_create_response="drop", paths=["POST /deployments"])
    deployment_id = emulated.launch(person)
    emulated.emulator.clear_faults()
    assert emulated.row(deployment_id).status == "UNCONFIRMED"
    [held] = emulated.emulator.deployments()

    result = emulated.sync()

    assert result.listed.confirmed == 1
    row = emulated.row(deployment_id)
    assert row.uuid == held["uuid"] and row.status == "creating"
    assert set(listing_failures(emulated.app).values()) == {0}
    assert emulated.posts() == 1  # settled, never submitted again


def test_the_listing_brings_the_portals_rows_up_to_date(emulated):
    person = served_person(emulated, "ada")
    ids = [emulated.launch(person) for _ in range(2)]
    for held in emulated.emulator.deployments():
        emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    result = emulated.sync()

    assert result.listings >= 1 and result.listed.listed == 2
    assert [emulated.row(i).status for i in ids] == ["ready"] * 2
    assert set(listing_failures(emulated.app).values()) == {0}


def test_people_with_their_own_token_have_deployments_made_elsewhere_adopted(emulated):
    if not emulated.app.config["OIDC_PROVIDERS"]:
        pytest.skip("no identity provider: nobody calls the orchestrator with their own token")
    served = served_person(emulated, "ada")
    served_id = emulated.launch(served)
    grace = emulated.oidc_user("grace")
    with OrchestratorClient(emulated.emulator.url, lambda: "tok-grace", (2, 5)) as client:
        made = client.create_deployment(
            TEMPLATE, {"jupyter_password": "x" * 12}, user_group="physics"
        )

    result = emulated.sync()

    assert result.listed.adopted == 1
    with emulated.app.app_context():
        adopted = db.session.scalars(select(Deployment).where(Deployment.user_id == grace)).all()
        assert [(row.uuid, row.adopted) for row in adopted] == [(made["uuid"], True)]
    assert emulated.row(served_id).uuid is not None
    assert set(listing_failures(emulated.app).values()) == {0}


def test_deployments_the_portals_identity_made_elsewhere_are_left_alone(emulated):
    """Nobody can be named their owner: the portal's identity is shared."""
    served = served_person(emulated, "ada")
    served_id = emulated.launch(served)
    with OrchestratorClient(emulated.emulator.url, lambda: SERVICE_TOKEN, (2, 5)) as client:
        client.create_deployment(TEMPLATE, {"jupyter_password": "x" * 12}, user_group="physics")

    result = emulated.sync()

    assert result.listed.listed == 2 and result.listed.adopted == 0
    with emulated.app.app_context():
        assert db.session.scalar(select(db.func.count(Deployment.id))) == 1
    assert emulated.row(served_id).status == "creating"
    assert set(listing_failures(emulated.app).values()) == {0}
