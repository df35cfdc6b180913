"""Each capacity source read against its emulator over real HTTP: the numbers in the portal's
words, and every fault ending in a named failure with a sentence."""

from datetime import UTC, datetime, timedelta

import pytest

from app.capacity.sources import configured, source_for
from app.capacity.sources.base import (
    SourceRefused,
    SourceTimeout,
    SourceUnavailable,
)
from app.clock import use_clock, utcnow
from tests.capacity.conftest import HANG

KINDS = ("fedreg", "im", "cluster-stats")


def read(app, kind):
    with app.app_context():
        (settings,) = configured(app.config["CAPACITY_SOURCES"])
        return {reading.site: reading for reading in source_for(settings).read()}


def test_cluster_statistics_give_free_gpus_per_portal_model(capacity_app):
    bari = read(capacity_app("cluster-stats"), "cluster-stats")["RECAS-BARI"]
    assert bari.gpus == {"A100": 4}  # the T4s are all taken
    assert bari.gpus_known and not bari.maintenance
    assert (bari.cores, bari.memory_gib, bari.disk_gib) == (160, 1408, 14000)
    assert bari.instances is None  # PAPI does not count instances


def test_the_registry_gives_each_providers_room_under_its_groups_quotas(capacity_app):
    found = read(capacity_app("fedreg"), "fedreg")
    bari, veneto = found["RECAS-BARI"], found["CLOUD-VENETO"]
    assert (bari.cores, bari.memory_gib, bari.disk_gib, bari.instances) == (160, 1408, 14000, 70)
    # Its flavours name two GPU models: the quota's free GPUs cannot be told apart.
    assert bari.gpus == {"": 4} and bari.gpus_known
    assert veneto.gpus == {} and not veneto.gpus_known
    assert veneto.aliases == ("padova",)


def test_the_registry_without_the_service_identity_shows_no_numbers(capacity_app):
    app = capacity_app("fedreg", ORCHESTRATOR_SERVICE_IDENTITY=None)
    bari = read(app, "fedreg")["RECAS-BARI"]
    assert (bari.cores, bari.memory_gib, bari.gpus_known) == (None, None, False)


def test_the_infrastructure_managers_quotas_give_each_im_sites_room(capacity_app):
    found = read(capacity_app("im", backend="im"), "im")
    bari = found["RECAS-BARI"]
    assert (bari.cores, bari.memory_gib, bari.disk_gib, bari.instances) == (160, 1408, 14000, 70)
    assert bari.gpus == {"": 4} and bari.gpus_known  # IM does not name the model
    assert found["CLOUD-VENETO"].gpus_known is False


def test_the_im_source_reads_no_site_that_im_does_not_reach(capacity_app):
    assert read(capacity_app("im", backend="paas"), "im") == {}


def failures(app, kind) -> list[str]:
    """What a read's failure says: the read's own, or (a source asking each site apart)
    each site's, in the order of the sites."""
    try:
        found = read(app, kind)
    except (SourceTimeout, SourceRefused) as failure:
        return [type(failure).__name__ + ": " + failure.message]
    return [found[site].problem for site in sorted(found)]


@pytest.mark.parametrize("kind", KINDS)
def test_a_source_that_hangs_is_a_timeout_in_words(capacity_app, world, kind):
    app = capacity_app(kind, backend="im", timeout=HANG)
    world.faults.hang_seconds = 30  # released when the test ends
    said = failures(app, kind)
    if kind == "im":  # each cloud is asked apart, and each one's failure is told
        assert len(said) == 2 and "quotas of CLOUD-VENETO" in said[0]
    else:
        assert said[0].startswith("SourceTimeout")
    assert all("did not answer in time" in sentence for sentence in said)


@pytest.mark.parametrize("kind", KINDS)
def test_a_source_that_refuses_the_portal_is_a_refusal_in_words(capacity_app, world, kind):
    app = capacity_app(kind, backend="im")
    world.faults.refuse = True
    said = failures(app, kind)
    if kind == "im":
        assert len(said) == 2 and "quotas of RECAS-BARI" in said[1]
    else:
        assert said[0].startswith("SourceRefused")
    assert all("credentials" in sentence for sentence in said)


@pytest.mark.parametrize("fault, words", [("hang", "did not answer in time"), (500, "HTTP 500")])
def test_one_im_cloud_failing_is_that_sites_failure_alone(capacity_app, world, fault, words):
    app = capacity_app("im", backend="im", timeout=3.0)
    world.faults.clouds["veneto"] = fault
    found = read(app, "im")
    assert found["RECAS-BARI"].problem is None and found["RECAS-BARI"].cores == 160
    veneto = found["CLOUD-VENETO"]
    assert words in veneto.problem and "quotas of CLOUD-VENETO" in veneto.problem
    assert (veneto.cores, veneto.gpus_known) == (None, False)


@pytest.mark.parametrize("kind", ("fedreg", "cluster-stats"))
def test_a_site_in_maintenance_is_told_as_such(capacity_app, world, kind):
    app = capacity_app(kind)
    world.change("RECAS-BARI", maintenance=True)
    bari = read(app, kind)["RECAS-BARI"]
    assert bari.maintenance
    if kind == "cluster-stats":  # PAPI reports ineligible nodes with nothing left
        assert bari.gpus == {} and bari.cores == 0


def test_cluster_statistics_older_than_an_hour_are_refused_by_the_source(capacity_app, world):
    app = capacity_app("cluster-stats")
    world.faults.stalled_since = utcnow()
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    with use_clock(lambda: later), pytest.raises(SourceUnavailable) as failure:
        read(app, "cluster-stats")
    assert "HTTP 500" in failure.value.message
    assert "more than 1 hour" in failure.value.message


def test_a_change_at_a_site_reaches_the_source_only_after_its_lag(capacity_app, world):
    app = capacity_app("cluster-stats")
    world.lag_seconds = 120
    world.change("RECAS-BARI", gpus={"NVIDIA A100-PCIE-40GB": (8, 8)})
    assert read(app, "cluster-stats")["RECAS-BARI"].gpus == {"A100": 4}
    later = datetime.now(UTC) + timedelta(seconds=121)
    with use_clock(lambda: later):
        assert read(app, "cluster-stats")["RECAS-BARI"].gpus == {}


def test_an_unusable_service_identity_is_a_refusal_in_words(capacity_app):
    app = capacity_app("fedreg", ORCHESTRATOR_SERVICE_IDENTITY={"issuer": "https://idp.invalid"})
    with pytest.raises(SourceRefused) as failure:
        read(app, "fedreg")
    assert "The Federation Registry was not asked" in failure.value.message
    assert "client_id" in failure.value.message


def test_cluster_statistics_give_what_each_usable_node_has_free(capacity_app, world):
    world.change("RECAS-BARI", gpus={"NVIDIA A100-PCIE-40GB": (8, 4), "Tesla T4": (4, 3)})
    bari = read(capacity_app("cluster-stats"), "cluster-stats")["RECAS-BARI"]
    # The emulator splits the site over a node without GPUs and one node per GPU model.
    assert sorted((dict(node.gpus) for node in bari.nodes), key=len) == [
        {},
        {"A100": 4},
        {"T4": 1},
    ]
    assert sum(node.cores for node in bari.nodes) == bari.cores == 160
