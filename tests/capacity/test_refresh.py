"""The refresh pass: due sources read once across processes, their numbers stored per site
with the time, failures kept beside the numbers from before, and age on the portal's clock."""

from datetime import UTC, datetime, timedelta

from app.capacity import snapshot
from app.capacity.refresh import refresh_due
from app.clock import OffsetFileClock, set_clock, use_clock
from app.extensions import db
from tests.capacity.conftest import sources
from tests.conftest import TEST_CONFIG
from tests.processes import race


def later(**delta):
    moment = datetime.now(UTC) + timedelta(**delta)
    return use_clock(lambda: moment)


def by_site():
    return {free.site: free for free in snapshot.current()}


def test_a_pass_stores_what_each_site_had_free_with_its_source(capacity_app):
    app = capacity_app("cluster-stats", "fedreg")
    with app.app_context():
        result = refresh_due()
        found = by_site()
    assert (result.read, result.failed) == (2, [])
    # The cluster's own statistics, listed first, are kept over the registry's numbers.
    bari, veneto = found["RECAS-BARI"], found["CLOUD-VENETO"]
    assert (bari.source, bari.gpus, bari.problem) == ("cluster-stats", {"A100": 4}, None)
    assert (veneto.source, veneto.cores, veneto.gpus_known) == ("fedreg", 44, False)


def test_a_source_is_read_again_only_when_due(capacity_app, world):
    app = capacity_app("cluster-stats", CAPACITY_REFRESH_SECONDS=120)
    with app.app_context():
        assert refresh_due().read == 1
        assert refresh_due().read == 0
        with later(seconds=121):
            assert refresh_due().read == 1
    assert world.calls == ["cluster-stats", "cluster-stats"]


def test_a_failed_read_keeps_the_numbers_from_before_and_says_why(capacity_app, world):
    app = capacity_app("cluster-stats")
    with app.app_context():
        refresh_due()
        first = by_site()["RECAS-BARI"]
        world.faults.refuse = True
        result = refresh_due(everything=True)
        kept = by_site()["RECAS-BARI"]
        assert result.failed == ["cluster-stats"]
        assert (kept.gpus, kept.read_at) == (first.gpus, first.read_at)
        assert "refused the portal's credentials (HTTP 401)" in kept.problem
        world.faults.refuse = False
        refresh_due(everything=True)
        assert by_site()["RECAS-BARI"].problem is None


def test_a_later_listed_source_replaces_a_sites_numbers_only_once_they_are_stale(
    capacity_app, world
):
    app = capacity_app("cluster-stats", "fedreg", CAPACITY_STALE_MINUTES=15)
    with app.app_context():
        refresh_due()
        world.faults.refuse = {"cluster-stats"}  # the registry still answers
        with later(minutes=5):
            refresh_due(everything=True)
            bari = by_site()["RECAS-BARI"]
            assert bari.source == "cluster-stats" and bari.problem
        with later(minutes=16):
            refresh_due(everything=True)
            bari = by_site()["RECAS-BARI"]
            assert (bari.source, bari.problem, bari.gpus) == ("fedreg", None, {"": 4})


def test_a_site_no_source_has_told_about_has_no_snapshot(capacity_app):
    app = capacity_app("cluster-stats")
    with app.app_context():
        refresh_due()
        assert set(by_site()) == {"RECAS-BARI"}


def test_a_site_the_portal_does_not_know_is_reported_not_stored(capacity_app, make_app):
    app = capacity_app("fedreg")
    with app.app_context():
        from app.capacity.operations import remove_site

        remove_site("CLOUD-VENETO")
        result = refresh_due()
    assert result.unknown == ["CLOUD-VENETO"]
    assert "not known here: CLOUD-VENETO" in str(result)


def test_data_ages_with_the_shared_clock_file(capacity_app, tmp_path):
    path = tmp_path / "clock-offset"
    app = capacity_app("cluster-stats", CLOCK_OFFSET_FILE=str(path), CAPACITY_STALE_MINUTES=15)
    try:
        with app.app_context():
            refresh_due()
            free = by_site()["RECAS-BARI"]
            assert not snapshot.is_stale(free)
            OffsetFileClock(path).move(timedelta(minutes=16))
            assert snapshot.age_seconds(free) >= 16 * 60
            assert snapshot.is_stale(free)
    finally:
        set_clock(None)


def _refresher(config, instance, barrier, queue):
    from app import create_app

    app = create_app(config, instance_path=instance)
    with app.app_context():
        barrier.wait()
        result = refresh_due()
        db.session.remove()
        db.engine.dispose()
    queue.put(result.read)


def test_several_processes_read_each_due_source_once(
    make_app, database_url, emulator, world, tmp_path
):
    settings = {
        "CAPACITY_SOURCES": sources(emulator.url, "fedreg", "cluster-stats"),
        "ORCHESTRATOR_SERVICE_IDENTITY": {"token": "service-token"},
    }
    app = make_app(SQLALCHEMY_DATABASE_URI=database_url, **settings)
    with app.app_context():
        from app.capacity.operations import add_site

        add_site("RECAS-BARI", "paas")
        add_site("CLOUD-VENETO", "paas")
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": database_url, **settings}
    reads = race(
        _refresher,
        [(config, str(tmp_path / f"i{n}")) for n in range(4)],
        parties=4,
        outcomes=4,
    )
    assert sum(reads) == 2
    assert sorted(world.calls) == ["cluster-stats", "fedreg"]
    with app.app_context():
        assert set(by_site()) == {"RECAS-BARI", "CLOUD-VENETO"}


def test_an_answer_no_reader_foresaw_is_a_failure_shown_and_the_pass_goes_on(
    capacity_app, monkeypatch
):
    from app.capacity.sources import cluster_stats

    app = capacity_app("cluster-stats", "fedreg")
    with app.app_context():
        refresh_due()
        monkeypatch.setattr(cluster_stats, "_reading", lambda *a: 1 / 0)
        result = refresh_due(everything=True)
        assert (result.read, result.failed) == (2, ["cluster-stats"])
        assert by_site()["RECAS-BARI"].problem == "The source's answer could not be read."
