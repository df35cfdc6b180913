"""The per-site verdict: each resource the quota counts, stale numbers, maintenance, a failed
read, unknown numbers, GPU models as quotas name them, and the one summary with the quota."""

from datetime import datetime, timedelta

import pytest

from app.capacity.snapshot import SiteFree
from app.capacity.verdicts import (
    GIB,
    Need,
    Verdict,
    combined,
    needs_of,
    site_verdict,
    site_verdicts,
)
from app.clock import use_clock

NOW = datetime(2026, 11, 28, 12, 0, 0)


def free(site="RECAS-BARI", minutes_old=2, **values) -> SiteFree:
    numbers = dict(
        cores=64,
        memory_gib=256.0,
        disk_gib=2000.0,
        instances=20,
        gpus={"A100": 4, "T4": 2},
        gpus_known=True,
        maintenance=False,
        problem=None,
    )
    numbers.update(values)
    return SiteFree(
        site=site, source="cluster-stats", read_at=NOW - timedelta(minutes=minutes_old), **numbers
    )


def charge(**values) -> dict:
    base = {
        "cores": 4,
        "memory": 8 * GIB,
        "disk": 20 * GIB,
        "gpus": 0,
        "gpu_models": {},
        "deployments": 1,
        "nodes": 1,
        "uncounted": [],
    }
    base.update(values)
    return base


@pytest.fixture
def ctx(app):
    with app.test_request_context(), use_clock(lambda: NOW):
        yield


def verdict_of(request_charge, site_free):
    return site_verdict(needs_of(request_charge), site_free, NOW, counted=True)


def test_the_needs_are_the_quota_charge_resources_with_gpus_per_model():
    needs = needs_of(charge(gpus=3, gpu_models={"A100": 2, "any model": 1}, nodes=2))
    assert needs == [
        Need("gpus", 2, "A100"),
        Need("gpus", 3),
        Need("cores", 4),
        Need("memory", 8 * GIB),
        Need("disk", 20 * GIB),
        Need("instances", 2),
    ]


def test_a_request_with_room_everywhere_fits(ctx):
    verdict = verdict_of(charge(gpus=2, gpu_models={"A100": 2}), free())
    assert verdict.verdict is Verdict.FITS
    assert verdict.binding is None and verdict.binding_text() == ""
    assert verdict.offered


@pytest.mark.parametrize(
    ("request_charge", "site", "words"),
    [
        (
            charge(gpus=2, gpu_models={"A100": 2}),
            free(gpus={"A100": 1}),
            "needs 2 A100 GPUs, 1 free at RECAS-BARI",
        ),
        (charge(cores=128), free(), "needs 128 cores, 64 free at RECAS-BARI"),
        (
            charge(memory=512 * GIB),
            free(),
            "needs 512 GiB of memory, 256 GiB free at RECAS-BARI",
        ),
        (charge(disk=4000 * GIB), free(), "free at RECAS-BARI"),
        (charge(nodes=3), free(instances=2), "needs 3 machines, 2 free at RECAS-BARI"),
        (
            charge(gpus=1, gpu_models={"V100": 1}),
            free(),
            "needs 1 V100 GPU, none free at RECAS-BARI",
        ),
        (charge(gpus=7, gpu_models={"any model": 7}), free(), "needs 7 GPUs, 6 free"),
    ],
)
def test_each_resource_short_at_a_fresh_site_does_not_fit_and_is_named(
    ctx, request_charge, site, words
):
    verdict = verdict_of(request_charge, site)
    assert verdict.verdict is Verdict.DOES_NOT_FIT
    assert words in verdict.binding_text()
    assert not verdict.offered


def test_gpu_models_are_matched_as_quotas_name_them_whatever_the_case(ctx):
    assert verdict_of(charge(gpus=2, gpu_models={"a100": 2}), free()).verdict is Verdict.FITS
    verdict = verdict_of(charge(gpus=3, gpu_models={"T4": 3}), free())
    assert verdict.binding_text() == "needs 3 T4 GPUs, 2 free at RECAS-BARI"


def test_gpus_of_any_model_count_every_free_gpu_but_models_asked_for_are_checked_apart(ctx):
    assert verdict_of(charge(gpus=6, gpu_models={"any model": 6}), free()).verdict is Verdict.FITS
    # Unnamed models count for "any model" too.
    site = free(gpus={"": 3})
    assert verdict_of(charge(gpus=3, gpu_models={"any model": 3}), site).verdict is Verdict.FITS
    mixed = charge(gpus=5, gpu_models={"A100": 4, "any model": 1})
    assert verdict_of(mixed, free(gpus={"A100": 4})).verdict is Verdict.DOES_NOT_FIT


def test_stale_numbers_never_refuse_and_say_so(ctx, app):
    old = app.config["CAPACITY_STALE_MINUTES"] + 1
    verdict = verdict_of(charge(cores=128), free(minutes_old=old))
    assert verdict.verdict is Verdict.MAY_NOT_FIT
    assert verdict.reason == "stale"
    assert verdict.binding_text().startswith("the numbers of RECAS-BARI are old")
    assert "needs 128 cores" in verdict.binding_text()
    assert verdict.offered
    fitting = verdict_of(charge(), free(minutes_old=old))
    assert fitting.verdict is Verdict.MAY_NOT_FIT and fitting.binding is None


def test_a_site_in_maintenance_may_not_fit_even_with_room(ctx):
    verdict = verdict_of(charge(), free(maintenance=True))
    assert verdict.verdict is Verdict.MAY_NOT_FIT
    assert verdict.binding_text() == "RECAS-BARI is in maintenance"
    short = verdict_of(charge(cores=999), free(maintenance=True))
    assert short.verdict is Verdict.MAY_NOT_FIT


def test_a_failed_read_of_the_source_gives_may_not_fit(ctx):
    verdict = verdict_of(charge(), free(problem="The source did not answer in 10 seconds."))
    assert verdict.verdict is Verdict.MAY_NOT_FIT
    assert verdict.reason == "problem"
    assert "could not be read" in verdict.binding_text()


@pytest.mark.parametrize(
    ("unknown", "words"),
    [
        ({"cores": None}, "needs 4 cores, RECAS-BARI does not say how many are free"),
        ({"memory_gib": None}, "of memory, RECAS-BARI does not say"),
        ({"disk_gib": None}, "of disk, RECAS-BARI does not say"),
        ({"instances": None}, "needs 1 machine, RECAS-BARI does not say"),
        ({"gpus": {}, "gpus_known": False}, "needs 1 A100 GPU, RECAS-BARI does not say"),
    ],
)
def test_an_unknown_number_gives_may_not_fit_for_that_resource(ctx, unknown, words):
    verdict = verdict_of(charge(gpus=1, gpu_models={"A100": 1}), free(**unknown))
    assert verdict.verdict is Verdict.MAY_NOT_FIT
    assert words in verdict.binding_text()


def test_an_unknown_number_the_request_does_not_need_does_not_matter(ctx):
    site = free(gpus={}, gpus_known=False, disk_gib=None)
    assert verdict_of(charge(disk=0), site).verdict is Verdict.FITS


def test_a_short_resource_wins_over_an_unknown_one(ctx):
    verdict = verdict_of(charge(cores=100), free(memory_gib=None))
    assert verdict.verdict is Verdict.DOES_NOT_FIT
    assert "cores" in verdict.binding_text()


def test_a_request_not_wholly_counted_may_not_fit_anywhere(ctx):
    found = site_verdicts(charge(uncounted=["a node of unknown flavour"]), [free()], NOW)
    assert found[0].verdict is Verdict.MAY_NOT_FIT
    assert found[0].reason == "uncounted"


def test_sites_are_listed_fitting_first_then_by_name_with_their_age_and_source(ctx):
    found = site_verdicts(
        charge(gpus=2, gpu_models={"A100": 2}),
        [
            free("ZETA", gpus={"A100": 2}),
            free("ALPHA", gpus={"A100": 1}),
            free("BETA", maintenance=True),
            free("GAMMA", minutes_old=3, gpus={"A100": 8}),
        ],
        NOW,
    )
    assert [(v.site, v.verdict) for v in found] == [
        ("GAMMA", Verdict.FITS),
        ("ZETA", Verdict.FITS),
        ("BETA", Verdict.MAY_NOT_FIT),
        ("ALPHA", Verdict.DOES_NOT_FIT),
    ]
    assert found[0].age_seconds == 180
    assert found[0].source == "cluster-stats"
    assert found[0].age_text() == "read 3 minutes ago"


def test_only_the_quota_refuses(ctx):
    nowhere = site_verdicts(charge(cores=999), [free("A"), free("B")], NOW)
    summary = combined(True, nowhere)
    assert summary.launchable and summary.verdict is Verdict.MAY_NOT_FIT
    assert summary.headline() == "Fits your quota, but no known site has room for it now."
    unsure = combined(
        True, site_verdicts(charge(cores=999), [free("A"), free("B", maintenance=True)], NOW)
    )
    assert "it may still be placed somewhere" in unsure.headline()
    refused = combined(False, site_verdicts(charge(), [free()], NOW))
    assert not refused.launchable and refused.verdict is Verdict.DOES_NOT_FIT


def test_the_summary_follows_the_chosen_site(ctx):
    found = site_verdicts(
        charge(gpus=2, gpu_models={"A100": 2}),
        [free("A", gpus={"A100": 2}), free("B", gpus={"A100": 0}, minutes_old=60)],
        NOW,
    )
    assert combined(True, found).verdict is Verdict.FITS
    assert "1 of 2 sites has room" in combined(True, found).headline()
    on_b = combined(True, found, chosen="B")
    assert on_b.verdict is Verdict.MAY_NOT_FIT and on_b.chosen.site == "B"
    assert "B may not have room" in on_b.headline()
    assert combined(True, found, chosen="A").headline() == "Fits your quota, and A has room for it."


def test_no_known_site_leaves_the_quota_to_decide(ctx):
    summary = combined(True, [])
    assert summary.verdict is Verdict.FITS and summary.headline() == ""


def test_the_words_are_italian_for_an_italian_reader(app):
    with app.test_request_context(headers={"Accept-Language": "it"}), use_clock(lambda: NOW):
        verdict = verdict_of(charge(gpus=2, gpu_models={"A100": 2}), free(gpus={"A100": 1}))
        assert "RECAS-BARI" in verdict.binding_text()
        assert "needs" not in verdict.binding_text()
        assert "minuti fa" in verdict.age_text()
