"""Who may see and act on a deployment, relaunching, and what is fetched on demand."""

import time

import pytest

from app.auth.models import User
from app.deployments import operations
from app.deployments.errors import DeploymentError, LaunchError
from app.deployments.models import Deployment
from app.errors import NotFound
from app.extensions import db
from app.launch import relaunching
from tests.deployments.conftest import PARAMETERS


def as_user(emulated, user_id, deployment_id, verb, *args, **kwargs):
    with emulated.app.app_context():
        user, deployment = db.session.get(User, user_id), db.session.get(Deployment, deployment_id)
        return verb(user, deployment, *args, **kwargs)


def test_people_see_only_their_own_deployments_and_admins_see_all(emulated):
    ada, bob = emulated.user("ada"), emulated.user("bob")
    admin = emulated.user("root", admin=True)
    deployment_id = emulated.launch(ada)

    with emulated.app.app_context():
        assert operations.visible_deployment(db.session.get(User, ada), deployment_id)
        assert operations.visible_deployment(db.session.get(User, admin), deployment_id)
        with pytest.raises(NotFound):
            operations.visible_deployment(db.session.get(User, bob), deployment_id)
        with pytest.raises(NotFound):
            operations.visible_deployment(db.session.get(User, bob), deployment_id + 1000)


def test_nobody_else_can_delete_a_deployment(emulated):
    ada, bob = emulated.user("ada"), emulated.user("bob")
    deployment_id = emulated.launch(ada)

    with pytest.raises(NotFound):
        as_user(emulated, bob, deployment_id, operations.delete)

    assert emulated.row(deployment_id).status == "creating"
    assert not [r for r in emulated.emulator.requests() if r["method"] == "DELETE"]


def test_an_admin_deleting_someone_elses_deployment_is_recorded(emulated):
    ada, admin = emulated.user("ada"), emulated.user("root", admin=True)
    deployment_id = emulated.launch(ada)
    [held] = emulated.emulator.deployments()
    emulated.emulator.set_status(held["uuid"], "CREATE_COMPLETE")

    as_user(emulated, admin, deployment_id, operations.delete)

    last = emulated.row(deployment_id).events[-1]
    assert (last.to_status, last.source, last.actor_id) == ("deleting", "admin", admin)


def test_relaunching_sends_the_same_settings_under_a_new_name_and_new_secrets(emulated):
    ada = emulated.user("ada")
    settings = {k: v for k, v in PARAMETERS.items() if k != "jupyter_password"}
    first = emulated.launch(ada, slug="secret-notebook", parameters=settings)

    second = as_user(emulated, ada, first, relaunching.relaunch, name="Again").id

    old, new = emulated.row(first), emulated.row(second)
    sent = {
        d["uuid"]: emulated.emulator.submitted(d["uuid"])["parameters"]
        for d in emulated.emulator.deployments()
    }
    assert new.name == "Again" and new.parameters == old.parameters
    assert sent[new.uuid]["num_cpus"] == sent[old.uuid]["num_cpus"] == 2
    assert sent[new.uuid]["jupyter_password"] != sent[old.uuid]["jupyter_password"]


def test_relaunching_needs_the_form_when_a_typed_secret_is_required(emulated):
    ada = emulated.user("ada")
    first = emulated.launch(ada)

    with pytest.raises(LaunchError) as refused:
        as_user(emulated, ada, first, relaunching.relaunch)

    assert "Edit and relaunch" in refused.value.message
    assert emulated.posts() == 1


def test_log_resources_and_template_are_fetched_on_demand(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)

    log = as_user(emulated, ada, deployment_id, operations.fetch_log)
    resources = as_user(emulated, ada, deployment_id, operations.fetch_resources)
    template = as_user(emulated, ada, deployment_id, operations.fetch_template)

    assert isinstance(log.text, str) and log.text
    assert isinstance(resources, list)
    assert template == emulated.row(deployment_id).template_text


def test_a_hanging_orchestrator_fails_an_on_demand_call_quickly_with_a_message(emulated):
    ada = emulated.user("ada")
    deployment_id = emulated.launch(ada)
    emulated.emulator.set_faults(hang=True, paths=["GET /deployments/*/log"])

    started = time.monotonic()
    with pytest.raises(DeploymentError) as failed:
        as_user(emulated, ada, deployment_id, operations.fetch_log)

    assert time.monotonic() - started < 6
    assert "could not be fetched" in failed.value.message
    emulated.emulator.clear_faults()
