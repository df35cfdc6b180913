"""``rcp launch --wait-in-line`` against a running portal: over the pool, it waits and prints
its place; without the flag the refusal says it could wait; ``rcp show`` prints the place."""

from app import create_app
from app.extensions import db
from app.quotas.editing import parse_limit, set_limits
from tests.api.conftest import live_portal  # noqa: F401 - the running portal
from tests.conftest import TEST_CONFIG

ALL = ("deployments:read", "deployments:write", "templates:read", "quota:read")


def _pool_of_two_cores(portal) -> None:
    config = {
        **TEST_CONFIG,
        "SQLALCHEMY_DATABASE_URI": portal.env["PORTAL_SQLALCHEMY_DATABASE_URI"],
    }
    app = create_app(config, instance_path=portal.env["PORTAL_INSTANCE_PATH"])
    with app.app_context():
        set_limits(None, "group", "physics", {"cores": parse_limit("cores", "2")}, "test")
        db.engine.dispose()


def test_rcp_waits_in_line_and_prints_its_place(live_portal):  # noqa: F811
    _pool_of_two_cores(live_portal)
    token = live_portal.token_from_account_page(ALL)
    launch = (
        "launch",
        "test-notebook",
        "--set",
        "num_cpus=2",
        "--set",
        "jupyter_password=pw-123456",
    )
    code, first, err = live_portal.rcp(*launch, "--json", token=token)
    assert code == 0, err
    code, _out, err = live_portal.rcp(*launch, token=token)
    assert code == 3 and "--wait-in-line" in err, err
    code, out, err = live_portal.rcp(*launch, "--wait-in-line", token=token)
    assert code == 0, err
    assert "Waiting in line: place 1." in out and "WAITING" in out
    waiting_id = out.split("ID", 1)[1].split()[0]
    code, shown, _err = live_portal.rcp("show", waiting_id, token=token)
    assert "In line   place 1 for CPU cores in group physics" in shown
    code, _out, err = live_portal.rcp("delete", waiting_id, token=token)
    assert code == 0, err
