"""What is said before a launch is what the launch then does: for each situation (it fits, the
person's own quota is full, the group's pool is full, someone waits ahead, no site has room,
over a limit by itself), the API's dry run, the launch form's cost box and ``rcp launch
--dry-run`` say the same as the real launch that follows, charging the same default group
(the person's first: no group is named anywhere here)."""

import re

import pytest
from click.testing import CliRunner

from app.backends.paas.emulator.demo import WSGITransport
from app.cli_client import main
from app.cli_client.api import Portal
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.editing import parse_limit, set_limits
from tests.conftest import People, csrf_from
from tests.launch.site_support import add_site

PASSWORD = "s3cret-passw0rd"


def _limits(app, kind, name, **limits):
    with app.app_context():
        changes = {key: parse_limit(key, text) for key, text in limits.items()}
        set_limits(None, kind, name, changes, "test")


def _launch(caller, cpus, wait=False):
    body = {
        "template": "test-notebook",
        "name": f"{caller.username}-{cpus}",
        "parameters": {"num_cpus": cpus, "jupyter_password": PASSWORD},
        **({"wait": True} if wait else {}),
    }
    return caller.post("/api/v1/deployments", json=body)


def own_quota_full(app, callers, ada):
    _limits(app, "user", str(ada.user_id), cores="2")
    assert _launch(ada, 2).status_code == 201
    return "wait", "over-quota"


def group_pool_full(app, callers, ada):
    _limits(app, "group", "physics", cores="2")
    assert _launch(callers("bea"), 2).status_code == 201
    return "wait", "over-quota"


def someone_waits_ahead(app, callers, ada):
    _limits(app, "group", "physics", cores="4")
    assert _launch(callers("bea"), 2).status_code == 201
    assert _launch(callers("cal"), 4, wait=True).status_code == 202
    return "wait", "line-ahead"


def no_site_has_room(app, callers, ada):
    add_site(app, "RECAS-BARI", cores=1)
    add_site(app, "CLOUD-CNAF", cores=0)
    return "wait", "no-site-room"


def over_a_limit_by_itself(app, callers, ada):
    _limits(app, "group", "physics", cores="1")
    return "refuse", "over-quota"


def fits(app, callers, ada):
    _limits(app, "group", "physics", cores="8")
    add_site(app, "RECAS-BARI", cores=1)
    add_site(app, "CLOUD-CNAF", cores=1, minutes_old=60 * 24)  # stale: never holds one back
    return "start", None


def _form_box(app, username, cpus) -> dict:
    client = app.test_client()
    People(app, client).login(username)
    page = client.get("/catalogue/test-notebook/")
    answer = client.post(
        "/catalogue/test-notebook/summary",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "num_cpus": str(cpus),
            "jupyter_password": PASSWORD,
        },
    )
    html = answer.get_data(as_text=True)
    found = dict(re.findall(r'data-(launchable|can-wait)="(yes|no)"', html))
    return {"launchable": found["launchable"] == "yes", "can_wait": found["can-wait"] == "yes"}


def _rcp(app, caller, cpus, monkeypatch) -> int:
    def portal() -> Portal:
        found = Portal("http://portal.test", caller.token)
        found.session.mount("http://portal.test", WSGITransport(app))
        return found

    monkeypatch.setattr(main, "_portal", portal)
    args = ["launch", "test-notebook", "--set", f"num_cpus={cpus}"]
    result = CliRunner().invoke(
        main.cli, [*args, "--set", f"jupyter_password={PASSWORD}", "--dry-run"]
    )
    return result.exit_code, result.output


SITUATIONS = [
    own_quota_full,
    group_pool_full,
    someone_waits_ahead,
    no_site_has_room,
    over_a_limit_by_itself,
    fits,
]


@pytest.mark.parametrize("situation", SITUATIONS, ids=lambda f: f.__name__)
def test_the_dry_run_the_cost_box_and_rcp_say_what_the_launch_then_does(
    app, callers, situation, monkeypatch
):
    ada = callers("ada")
    outcome, kind = situation(app, callers, ada)
    cpus = 2

    dry = ada.post(
        "/api/v1/deployments?dry_run=true",
        json={
            "template": "test-notebook",
            "parameters": {"num_cpus": cpus, "jupyter_password": PASSWORD},
        },
    ).get_json()
    assert dry["fit"]["group"] == "physics"  # the group the launch charges when none is named
    assert (dry["outcome"], dry["kind"]) == (outcome, kind), dry
    assert dry["can_wait"] is (outcome == "wait")
    box = _form_box(app, "ada", cpus)
    assert box == {"launchable": outcome == "start", "can_wait": outcome == "wait"}
    code, out = _rcp(app, ada, cpus, monkeypatch)
    assert code == (0 if outcome == "start" else 3), out

    with app.app_context():
        before = db.session.scalar(db.select(db.func.count(Deployment.id)))
    launched = _launch(ada, cpus)
    if outcome == "start":
        assert launched.status_code == 201, launched.get_json()
        return
    problem = launched.get_json()
    assert launched.status_code == 409, problem
    assert problem["type"].endswith(f"/{kind}")
    assert problem["can_wait"] is (outcome == "wait")
    assert problem["fit"]["group"] == "physics"
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count(Deployment.id))) == before
