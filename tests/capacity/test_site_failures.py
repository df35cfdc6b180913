"""A source that asks each site apart (the Infrastructure Manager's quotas, one request per
cloud) fails per site: the sites that answered are stored fresh, a site whose cloud hangs or
errs keeps its numbers from before marked with the failure (on the capacity page, in
/metrics and in the verdicts), and a read in which every site failed counts as failed."""

from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.capacity import snapshot
from app.capacity.refresh import refresh_due
from app.capacity.verdicts import Verdict, site_verdicts
from app.clock import use_clock

TOKEN = "scrape-" + "t" * 32
GIB = 2**30
# Long enough for the cloud that answers to answer on a loaded machine; the one that hangs is
# held until the test ends.
TIMEOUT = 3.0
# cloud fault: what the portal's sentence says of it
FAULTS = {
    "hang": "did not answer in time",
    500: "answered HTTP 500",
}


def later(minutes: int):
    moment = datetime.now(UTC) + timedelta(minutes=minutes)
    return use_clock(lambda: moment)


def by_site():
    return {free.site: free for free in snapshot.current()}


@pytest.fixture
def im_portal(capacity_app):
    """A portal reading IM's quotas of RECAS-BARI (cloud recas) and CLOUD-VENETO (veneto),
    read once while both answered."""
    app = capacity_app("im", backend="im", timeout=TIMEOUT, METRICS_TOKEN=TOKEN)
    with app.app_context():
        result = refresh_due()
        assert (result.failed, result.sites) == ([], 2)
    return app


@pytest.mark.parametrize("fault", FAULTS)
def test_one_cloud_failing_leaves_its_numbers_marked_and_stores_the_others(im_portal, world, fault):
    with im_portal.app_context():
        first = by_site()
        world.faults.clouds["recas"] = fault
        world.change("CLOUD-VENETO", cores=(64, 60))
        with later(minutes=5):
            result = refresh_due(everything=True)
            found = by_site()
    assert (result.read, result.failed, result.sites) == (1, [], 1)
    assert result.unread == ["RECAS-BARI"]
    assert "not read: RECAS-BARI" in str(result)
    bari, veneto = found["RECAS-BARI"], found["CLOUD-VENETO"]
    assert (bari.cores, bari.gpus, bari.read_at) == (160, {"": 4}, first["RECAS-BARI"].read_at)
    assert "quotas of RECAS-BARI" in bari.problem and FAULTS[fault] in bari.problem
    assert veneto.cores == 4 and veneto.read_at > first["CLOUD-VENETO"].read_at
    assert veneto.problem is None


def test_the_failing_site_may_not_fit_while_the_healthy_one_is_judged_on_its_numbers(
    im_portal, world
):
    world.faults.clouds["recas"] = 500
    with im_portal.app_context():
        refresh_due(everything=True)
        frees = snapshot.current()
        with im_portal.test_request_context():
            small = {v.site: v for v in site_verdicts({"cores": 4, "nodes": 1}, frees)}
            large = {v.site: v for v in site_verdicts({"cores": 100}, frees)}
    # RECAS-BARI has 160 cores free by its last numbers, but could not be read just now.
    assert (small["RECAS-BARI"].verdict, small["RECAS-BARI"].reason) == (
        Verdict.MAY_NOT_FIT,
        "problem",
    )
    assert large["RECAS-BARI"].verdict is Verdict.MAY_NOT_FIT
    assert (small["CLOUD-VENETO"].verdict, small["CLOUD-VENETO"].reason) == (Verdict.FITS, None)
    assert large["CLOUD-VENETO"].verdict is Verdict.DOES_NOT_FIT  # 44 cores free, read now


def test_operators_see_which_site_could_not_be_read(im_portal, world, people_for):
    world.faults.clouds["recas"] = 500
    with im_portal.app_context():
        refresh_due(everything=True)
    client = im_portal.test_client()
    people_for(im_portal, client).login_as("operator")
    page = client.get("/capacity/").get_data(as_text=True)
    veneto, bari = page.split("CLOUD-VENETO", 1)[1].split("RECAS-BARI", 1)
    assert "Last refresh failed" in bari and "answered HTTP 500" in bari
    assert "Last refresh failed" not in veneto
    italian = client.get("/capacity/", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Ultimo aggiornamento non riuscito" in italian and "HTTP 500" in italian


def _problems(app) -> dict:
    answer = app.test_client().get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    families = text_string_to_metric_families(answer.get_data(as_text=True))
    (trouble,) = [f for f in families if f.name == "portal_capacity_problem"]
    return {
        s.labels["site"]: s.value
        for s in trouble.samples
        if s.labels["problem"] == "refresh_failed"
    }


def test_metrics_mark_the_site_that_could_not_be_read(im_portal, world):
    world.faults.clouds["recas"] = "hang"
    with im_portal.app_context():
        refresh_due(everything=True)
    assert _problems(im_portal) == {"RECAS-BARI": 1, "CLOUD-VENETO": 0}


def test_every_cloud_failing_is_a_failed_read_shown_for_every_site(im_portal, world):
    world.faults.clouds.update(recas=500, veneto="hang")
    with im_portal.app_context():
        with later(minutes=5):
            result = refresh_due(everything=True)
        found = by_site()
    assert (result.read, result.failed, result.sites) == (1, ["im"], 0)
    assert "answered HTTP 500" in found["RECAS-BARI"].problem
    assert "did not answer in time" in found["CLOUD-VENETO"].problem
    assert found["CLOUD-VENETO"].cores == 44  # its numbers from before
    assert _problems(im_portal) == {"RECAS-BARI": 1, "CLOUD-VENETO": 1}


def test_a_cloud_that_answers_again_clears_its_mark(im_portal, world):
    world.faults.clouds["recas"] = 500
    with im_portal.app_context():
        refresh_due(everything=True)
        assert by_site()["RECAS-BARI"].problem
        world.faults.clouds.clear()
        result = refresh_due(everything=True)
        assert (result.sites, result.unread) == (2, [])
        assert all(free.problem is None for free in snapshot.current())


def test_a_site_failing_marks_no_numbers_another_source_gave(capacity_app, world):
    """The registry, listed first, told RECAS-BARI's numbers: IM failing there leaves them."""
    app = capacity_app("fedreg", "im", backend="im", timeout=TIMEOUT)
    world.faults.clouds["recas"] = 500
    with app.app_context():
        result = refresh_due()
        bari = by_site()["RECAS-BARI"]
    assert result.unread == ["RECAS-BARI"] and result.failed == []
    assert (bari.source, bari.problem) == ("fedreg", None)
