"""``flask quota show`` and ``flask quota set``."""

from app.auth.models import User
from app.extensions import db
from app.quotas.models import QuotaChange
from tests.quotas.conftest import GB, charge


def run(app, *args):
    return app.test_cli_runner().invoke(args=["quota", *args])


def test_set_then_show_a_users_limits_and_what_holds_them(quota_app, quotas):
    user = quotas.user("ada")
    quotas.hold(
        user, {**charge(cores=4, gpus=1, gpu_models={"A100": 1}), "summary": "big"}, name="training"
    )
    result = run(
        quota_app,
        "set",
        "--user",
        "ada",
        "--gpus",
        "4",
        "--gpu-model",
        "A100=1",
        "--memory",
        "64 GB",
        "--cores",
        "unlimited",
        "--reason",
        "new grant",
    )
    assert result.exit_code == 0, result.output
    assert "4 GPUs" in result.output
    shown = run(quota_app, "show", "ada")
    assert shown.exit_code == 0, shown.output
    assert "1 GPU held of 4 GPUs" in shown.output.replace("  ", " ").replace("  ", " ")
    assert "A100 GPUs" in shown.output and "own limit" in shown.output
    assert "#1 training [CREATE_COMPLETE] big" in shown.output
    with quota_app.app_context():
        change = db.session.scalar(db.select(QuotaChange))
        assert change.new == {
            "cores": None,
            "gpus": 4,
            "memory": 64 * GB,
            "gpu_models": {"A100": 1},
        }
        assert (change.actor_id, change.actor_name, change.reason) == (None, "", "new grant")


def test_set_for_a_group_pool_and_the_site(quota_app):
    assert (
        run(quota_app, "set", "--group-pool", "physics", "--gpus", "32", "--reason", "x").exit_code
        == 0
    )
    assert (
        run(quota_app, "set", "--group", "physics", "--gpus", "4", "--reason", "x").exit_code == 0
    )
    assert run(quota_app, "set", "--site", "--deployments", "5", "--reason", "x").exit_code == 0
    with quota_app.app_context():
        scopes = [(c.scope, c.subject) for c in db.session.scalars(db.select(QuotaChange))]
    assert scopes == [("group", "physics"), ("member", "physics"), ("site", "")]


def test_bad_values_and_targets_are_refused_with_a_message(quota_app, quotas):
    quotas.user("ada", provider="local")
    quotas.user("ada", provider="ldap")
    result = run(quota_app, "set", "--site", "--gpus", "many", "--reason", "x")
    assert result.exit_code != 0 and "GPUs: must be a whole number" in result.output
    result = run(quota_app, "set", "--site", "--user", "ada", "--gpus", "1", "--reason", "x")
    assert result.exit_code != 0 and "exactly one of" in result.output
    result = run(quota_app, "show", "ada")
    assert result.exit_code != 0 and "add --provider" in result.output
    assert run(quota_app, "show", "ada", "--provider", "ldap").exit_code == 0
    result = run(quota_app, "set", "--site", "--gpus", "1")
    assert result.exit_code != 0 and "--reason" in result.output
    with quota_app.app_context():
        assert db.session.scalar(db.select(QuotaChange)) is None
        assert db.session.scalar(db.select(db.func.count()).select_from(User)) == 2
