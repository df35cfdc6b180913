"""CAPACITY_SOURCES and GPU_MODEL_NAMES are read from the environment as JSON, and settings
that cannot be used stop the portal with a sentence saying what to change; the sync worker
runs the refresh pass among its own."""

import pytest

from app.capacity.sources import configured
from app.errors import ConfigurationError


def test_the_environment_gives_the_sources_as_json(make_app, monkeypatch):
    monkeypatch.setenv(
        "PORTAL_CAPACITY_SOURCES",
        '[{"kind": "cluster-stats", "url": "https://papi.example.org/", "site": "RECAS-BARI"}]',
    )
    app = make_app()
    (source,) = configured(app.config["CAPACITY_SOURCES"])
    assert (source.kind, source.url, source.options["site"]) == (
        "cluster-stats",
        "https://papi.example.org",
        "RECAS-BARI",
    )


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("[{", "CAPACITY_SOURCES is not JSON"),
        ({"kind": "fedreg"}, "CAPACITY_SOURCES must be a list of objects."),
        (["fedreg"], "CAPACITY_SOURCES entry 1 is not an object with a kind and a url."),
        ([{"kind": "slurm", "url": "https://x"}], "has kind 'slurm'; the kinds are fedreg, im"),
        ([{"kind": "fedreg"}], "CAPACITY_SOURCES entry 1 (fedreg) needs a url."),
        ([{"kind": "fedreg", "url": "ftp://x"}], "url must start with http:// or https://"),
        (
            [{"kind": "cluster-stats", "url": "https://papi"}],
            "(cluster-stats) needs a site: the portal's name of the site it describes.",
        ),
        (
            [{"kind": "fedreg", "url": "https://r"}, {"kind": "fedreg", "url": "https://r/"}],
            "CAPACITY_SOURCES entry 2 repeats an earlier entry.",
        ),
    ],
)
def test_unusable_sources_stop_the_portal_in_words(make_app, setting, words):
    with pytest.raises(ConfigurationError) as refused:
        make_app(CAPACITY_SOURCES=setting)
    assert words in str(refused.value)


def test_the_im_source_may_leave_its_address_to_im_url():
    (source,) = configured([{"kind": "im"}])
    assert (source.kind, source.url) == ("im", "")


def test_gpu_model_names_must_map_names_to_names(make_app):
    with pytest.raises(ConfigurationError) as refused:
        make_app(GPU_MODEL_NAMES=["A100"])
    assert "GPU_MODEL_NAMES must be a JSON object of names" in str(refused.value)


def test_the_worker_runs_the_refresh_duty(make_app):
    from app.worker import chosen, run_pass

    app = make_app()
    with app.app_context():
        (duty,) = chosen(("capacity",))
        outcome = run_pass(duty)
    assert (outcome.read, outcome.acted) == (0, False)
