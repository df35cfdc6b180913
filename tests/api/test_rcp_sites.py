"""``rcp launch --dry-run`` prints each site's verdict with why and how old its numbers are, and
``rcp launch --site NAME`` launches there; rcp runs in this process, its calls handed to the
portal app (the round through a served portal is ``test_rcp``)."""

import json

import pytest
from click.testing import CliRunner

from app.backends.paas.emulator.demo import WSGITransport
from app.cli_client import main
from app.cli_client.api import Portal
from app.deployments.models import Deployment
from app.extensions import db
from tests.launch.site_support import two_sites


@pytest.fixture
def rcp(app, callers, monkeypatch):
    two_sites(app)
    ada = callers("ada")

    def portal() -> Portal:
        found = Portal("http://portal.test", ada.token)
        found.session.mount("http://portal.test", WSGITransport(app))
        return found

    monkeypatch.setattr(main, "_portal", portal)

    def run(*args):
        result = CliRunner().invoke(main.cli, list(args))
        return result.exit_code, result.output

    return run


def test_the_dry_run_prints_each_sites_verdict(rcp):
    code, out = rcp(
        "launch", "test-notebook", "--set", "num_cpus=4", "--set", "jupyter_password=x", "--dry-run"
    )
    assert code == 0, out
    assert "Sites: Fits your quota, and 1 of 2 sites has room for it." in out
    lines = out.splitlines()
    header = next(line for line in lines if "SITE" in line)
    assert header.split() == ["SITE", "VERDICT", "WHY", "NUMBERS"]
    bari = next(line for line in lines if line.strip().startswith("RECAS-BARI"))
    assert "fits" in bari and "cluster-stats, read 3 min ago" in bari
    cnaf = next(line for line in lines if line.strip().startswith("CLOUD-CNAF"))
    assert "does-not-fit" in cnaf and "needs 4 cores, none free at CLOUD-CNAF" in cnaf


def test_the_dry_run_as_json_carries_the_sites(rcp):
    code, out = rcp("launch", "test-notebook", "--set", "jupyter_password=x", "--dry-run", "--json")
    assert code == 0, out
    sites = json.loads(out)["sites"]
    assert {site["site"]: site["verdict"] for site in sites} == {
        "RECAS-BARI": "fits",
        "CLOUD-CNAF": "does-not-fit",
    }


def test_a_launch_at_a_site_is_stored_with_the_request(rcp, app):
    code, out = rcp(
        "launch",
        "test-notebook",
        "--name",
        "at-bari",
        "--set",
        "jupyter_password=x",
        "--site",
        "RECAS-BARI",
    )
    assert code == 0, out
    with app.app_context():
        deployment = db.session.scalar(db.select(Deployment))
        assert deployment.request_options["site"] == "RECAS-BARI"


def test_an_unknown_site_is_refused_with_the_portals_words(rcp):
    code, out = rcp("launch", "test-notebook", "--set", "jupyter_password=x", "--site", "NOWHERE")
    assert code == 3
    assert "There is no site named “NOWHERE”; nothing was launched." in out
