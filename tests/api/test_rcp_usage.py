"""``rcp usage`` prints hours per day and in total, or the API's JSON; rcp runs in this
process, its calls handed to the portal app."""

import json
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from app.backends.paas.emulator.demo import WSGITransport
from app.cli_client import main
from app.cli_client.api import Portal
from app.clock import set_clock
from tests.api.test_usage_api import end, hold
from tests.quotas.conftest import charge


@pytest.fixture
def rcp(app, callers, monkeypatch):
    ada = callers("ada")

    def portal() -> Portal:
        found = Portal("http://portal.test", ada.token)
        found.session.mount("http://portal.test", WSGITransport(app))
        return found

    monkeypatch.setattr(main, "_portal", portal)

    def run(*args):
        result = CliRunner().invoke(main.cli, list(args))
        return result.exit_code, result.output

    run.ada = ada
    return run


def test_rcp_usage_prints_each_day_and_the_total(rcp, app):
    now = {"at": datetime(2026, 11, 19, 22, 0)}
    set_clock(lambda: now["at"])
    held = hold(app, rcp.ada.user_id, charge(cores=2, gpus=1, gpu_models={"A100": 1}), "physics")
    now["at"] += timedelta(hours=3, minutes=30)
    end(app, held)
    code, out = rcp("usage", "--from", "2026-11-01", "--to", "2026-11-30")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "Usage of ada from 2026-11-01 to 2026-11-30 (UTC days)"
    assert lines[1].split() == [
        "DAY",
        "CORE-HOURS",
        "MEMORY-GB-HOURS",
        "GPU-HOURS",
        "BY",
        "GPU",
        "MODEL",
    ]
    assert lines[2].split() == ["2026-11-19", "4.00", "0.00", "2.00", "A100", "2.00"]
    assert lines[3].split() == ["2026-11-20", "3.00", "0.00", "1.50", "A100", "1.50"]
    assert lines[4].split() == ["TOTAL", "7.00", "0.00", "3.50", "A100", "3.50"]
    code, out = rcp("usage", "--group", "physics", "--from", "2026-11-20", "--json")
    assert code == 0, out
    body = json.loads(out)
    assert body["group"] == "physics" and body["total"]["gpu_hours_by_model"] == {"A100": 1.5}


def test_rcp_usage_of_a_group_not_ones_own_is_refused_with_the_portals_words(rcp):
    code, out = rcp("usage", "--group", "chemistry")
    assert code != 0
    assert "You may see the usage of your own groups only." in out
