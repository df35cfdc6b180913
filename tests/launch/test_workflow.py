"""Launching against the emulator served over HTTP: record first, send what the contract wants,
and never call an ambiguous outcome "nothing was launched" nor submit anything twice."""

import time

import pytest

from app.deployments.errors import LaunchError, TooManyLaunches
from app.launch.workflow import LaunchPending
from tests.deployments.conftest import PARAMETERS


def test_a_launch_is_recorded_then_submitted_with_the_configured_options(emulated):
    ada = emulated.user("ada", groups=("physics",))

    deployment = emulated.row(emulated.launch(ada, name="My notebook"))

    [held] = emulated.emulator.deployments()
    assert deployment.uuid == held["uuid"] and deployment.status == "creating"
    assert deployment.name == "My notebook" and deployment.group_name == "physics"
    sent = emulated.emulator.submitted(held["uuid"])
    assert sent["userGroup"] == "physics"
    assert sent["keepLastAttempt"] is False and sent["timeoutMins"] == 720
    assert sent["maxProvidersRetry"] == 3 and sent["providerTimeoutMins"] == 240
    assert sent["callback"].endswith(
        f"/deployments/callback/{deployment.id}/{deployment.reference_secret}"
    )
    assert sent["template"] == deployment.template_text
    steps = [(e.from_status, e.to_status, e.source) for e in deployment.events]
    assert steps == [(None, "SUBMITTING", "launch"), ("SUBMITTING", "creating", "launch")]
    assert deployment.next_check_at is not None


def test_a_deployment_gets_a_default_name_from_its_template(emulated):
    ada = emulated.user("ada")

    deployment = emulated.row(emulated.launch(ada))

    assert deployment.name.startswith("Test notebook ") and len(deployment.name) == 18


@pytest.mark.parametrize("mode", ["drop", "504"])
def test_a_lost_create_response_is_unconfirmed_then_matched_by_sync_without_duplicates(
    emulated, mode
):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(lose_create_response=mode, paths=["POST /deployments"])

    deployment = emulated.row(emulated.launch(ada))

    assert deployment.status == "UNCONFIRMED" and deployment.uuid is None
    assert "will not submit it again" in deployment.status_reason
    emulated.emulator.clear_faults()
    result = emulated.sync()
    [held] = emulated.emulator.deployments()
    settled = emulated.row(deployment.id)
    assert result.listed.confirmed == 1 and result.listed.adopted == 0
    assert settled.uuid == held["uuid"] and settled.status == "creating"
    assert emulated.posts() == 1
    assert [e.to_status for e in settled.events][-1] == "creating"


def test_a_create_slower_than_the_timeout_is_unconfirmed_and_found_once_it_exists(emulated):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(latency=3, paths=["POST /deployments"])

    deployment = emulated.row(emulated.launch(ada))

    assert deployment.status == "UNCONFIRMED"
    emulated.emulator.clear_faults()
    deadline = time.monotonic() + 10
    while not emulated.emulator.deployments() and time.monotonic() < deadline:
        time.sleep(0.2)
    emulated.sync()
    assert emulated.row(deployment.id).uuid == emulated.emulator.deployments()[0]["uuid"]
    assert emulated.posts() == 1


def test_retrying_an_unconfirmed_launch_does_not_submit_it_again(emulated):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(lose_create_response="drop", paths=["POST /deployments"])
    first = emulated.launch(ada)
    emulated.emulator.clear_faults()

    with pytest.raises(LaunchPending) as refused:
        emulated.launch(ada)

    assert refused.value.deployment_id == first
    assert "could create it twice" in refused.value.message
    assert emulated.posts() == 1


def test_a_different_launch_is_not_held_back_by_an_unconfirmed_one(emulated):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(lose_create_response="drop", paths=["POST /deployments"])
    emulated.launch(ada)
    emulated.emulator.clear_faults()

    emulated.launch(ada, parameters={**PARAMETERS, "num_cpus": 4})

    assert emulated.posts() == 2


@pytest.mark.parametrize("with_body", [True, False])
def test_a_500_is_unconfirmed_and_settled_as_not_launched_when_nothing_turns_up(
    make_app, orchestrator_emulator, emulated_settings, with_body
):
    from tests.deployments.conftest import Emulated

    emulated_settings["DEPLOYMENTS_UNCONFIRMED_GRACE_SECONDS"] = 0
    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    ada = emulated.user("ada")
    emulated.emulator.set_faults(
        error_rate=1.0, error_status=500, error_body=with_body, paths=["POST /deployments"]
    )

    deployment = emulated.row(emulated.launch(ada))

    assert deployment.status == "UNCONFIRMED"
    emulated.emulator.clear_faults()
    emulated.sync()
    settled = emulated.row(deployment.id)
    assert settled.status == "NOT_LAUNCHED" and emulated.emulator.deployments() == []
    assert "nothing was launched" in settled.status_reason


def _emulated(make_app, emulator, settings, helper):
    from tests.deployments.conftest import SERVICE_TOKEN, save_and_publish

    emulator.add_token(SERVICE_TOKEN, "portal-service", "https://iam.test/", groups=["physics"])
    app = make_app(ORCHESTRATOR_URL=emulator.url, **settings)
    save_and_publish(app)
    return helper(app, emulator)


def test_a_hanging_orchestrator_leaves_the_launch_unconfirmed_after_the_timeout(emulated):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(hang=True, paths=["POST /deployments"])

    started = time.monotonic()
    deployment = emulated.row(emulated.launch(ada))

    assert time.monotonic() - started < 10
    assert deployment.status == "UNCONFIRMED"
    emulated.emulator.clear_faults()


def test_an_orchestrator_that_cannot_be_reached_launches_nothing(
    make_app, orchestrator_emulator, emulated_settings, closed_port_url
):
    from tests.deployments.conftest import Emulated

    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    emulated.app.config["ORCHESTRATOR_URL"] = closed_port_url
    ada = emulated.user("ada")

    with pytest.raises(LaunchError) as refused:
        emulated.launch(ada)

    assert "Nothing was launched." in refused.value.message
    with emulated.app.app_context():
        from app.deployments.models import Deployment
        from app.extensions import db

        [row] = db.session.scalars(db.select(Deployment)).all()
        assert row.status == "NOT_LAUNCHED" and row.uuid is None


def test_the_infn_group_rule_refuses_a_launch_without_user_group(
    make_app, orchestrator_emulator, emulated_settings
):
    from tests.deployments.conftest import Emulated

    emulated_settings["ORCHESTRATOR_USER_GROUP"] = "never"
    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    ada = emulated.user("ada")

    with pytest.raises(LaunchError) as refused:
        emulated.launch(ada)

    assert "Nothing was launched." in refused.value.message
    assert "does not allow" in refused.value.message
    assert emulated.emulator.deployments() == []


def test_a_group_the_user_is_not_in_is_refused_before_anything_is_sent(emulated):
    ada = emulated.user("ada", groups=("physics",))

    with pytest.raises(LaunchError) as refused:
        emulated.launch(ada, group="chemistry")

    assert refused.value.field == "group"
    assert emulated.posts() == 0


def test_always_sending_a_group_refuses_people_without_one(
    make_app, orchestrator_emulator, emulated_settings
):
    from tests.deployments.conftest import Emulated

    emulated_settings["ORCHESTRATOR_USER_GROUP"] = "always"
    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    loner = emulated.user("loner", groups=())

    with pytest.raises(LaunchError) as refused:
        emulated.launch(loner)

    assert "belongs to none" in refused.value.message
    assert emulated.posts() == 0


def test_local_accounts_without_a_service_identity_are_told_before_launching(
    make_app, orchestrator_emulator, emulated_settings
):
    from app.auth.models import User
    from app.deployments.operations import launch_blocker
    from app.extensions import db
    from tests.deployments.conftest import Emulated

    emulated_settings["ORCHESTRATOR_SERVICE_IDENTITY"] = None
    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    ada = emulated.user("ada")
    with emulated.app.app_context():
        blocker = launch_blocker(db.session.get(User, ada), "paas")

    assert "Test IAM" in blocker and "service identity" in blocker
    with pytest.raises(LaunchError):
        emulated.launch(ada)
    assert emulated.posts() == 0
    # The Infrastructure Manager has the portal's own credentials: it acts for anyone.
    with emulated.app.app_context():
        assert launch_blocker(db.session.get(User, ada), "im") is None


def test_people_with_their_own_token_launch_in_their_own_name(emulated):
    grace = emulated.oidc_user("grace", groups=("chemistry",))

    deployment = emulated.row(emulated.launch(grace))

    [held] = emulated.emulator.deployments()
    assert held["createdBy"] == {"subject": "grace-sub", "issuer": "https://iam.test/"}
    assert deployment.backend_data["owner"] == "grace-sub@https://iam.test/"
    assert emulated.emulator.submitted(held["uuid"])["userGroup"] == "chemistry"


def test_launches_beyond_the_rate_limit_are_refused_with_a_clear_message(emulated):
    emulated.app.config["LAUNCHES_PER_MINUTE"] = 2
    ada = emulated.user("ada")
    emulated.launch(ada)
    emulated.launch(ada, parameters={**PARAMETERS, "num_cpus": 3})

    with pytest.raises(TooManyLaunches) as refused:
        emulated.launch(ada, parameters={**PARAMETERS, "num_cpus": 4})

    assert "wait a minute" in refused.value.message
    assert emulated.posts() == 2
