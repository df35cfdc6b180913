"""Renamed settings keep working under their old names (app/config.py, RENAMED): read as the
new name from a settings file, the instance's portal.cfg, the environment or a test's mapping,
with one warning naming the new setting; the new name wins when one source sets both."""

import pytest

from app import create_app
from app.config import RENAMED
from tests.conftest import TEST_CONFIG


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def _start(tmp_path, overrides=None):
    return create_app({**TEST_CONFIG, **(overrides or {})}, instance_path=str(tmp_path / "i"))


def test_every_old_name_is_a_queue_setting_and_every_new_one_a_default(tmp_path):
    app = _start(tmp_path)
    assert all(old.startswith("QUEUE_") and new.startswith("LINE_") for old, new in RENAMED.items())
    assert all(new in app.config and old not in app.config for old, new in RENAMED.items())


def test_the_new_name_works(tmp_path, caplog):
    with caplog.at_level("WARNING"):
        app = _start(tmp_path, {"LINE_MAX_WAIT": "8h", "LINE_ENABLED": False})
    assert app.config["LINE_MAX_WAIT"] == "8h" and app.config["LINE_ENABLED"] is False
    assert not any("QUEUE_" in w or "LINE_" in w for w in _warnings(caplog))


def test_an_old_name_in_the_settings_file_is_read_as_the_new_one(tmp_path, monkeypatch, caplog):
    settings = tmp_path / "portal.py"
    settings.write_text("QUEUE_MAX_WAIT = '12h'\nQUEUE_ADMIT_BATCH = 7\n")
    monkeypatch.setenv("PORTAL_SETTINGS", str(settings))
    with caplog.at_level("WARNING"):
        app = _start(tmp_path)
    assert app.config["LINE_MAX_WAIT"] == "12h" and app.config["LINE_ADMIT_BATCH"] == 7
    assert "QUEUE_MAX_WAIT" not in app.config
    assert (
        "QUEUE_MAX_WAIT is now called LINE_MAX_WAIT: it is read as LINE_MAX_WAIT; rename it."
        in _warnings(caplog)
    )


def test_an_old_name_in_the_instance_file_is_read_as_the_new_one(tmp_path):
    (tmp_path / "i").mkdir()
    (tmp_path / "i" / "portal.cfg").write_text("QUEUE_FAIR_SHARE = False\n")
    assert _start(tmp_path).config["LINE_FAIR_SHARE"] is False


def test_an_old_name_in_the_environment_is_read_as_the_new_one(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("PORTAL_QUEUE_ENABLED", "false")
    monkeypatch.setenv("PORTAL_QUEUE_FAIR_SHARE_MINUTES_PER_GPU_HOUR", "3")
    with caplog.at_level("WARNING"):
        app = _start(tmp_path)
    assert app.config["LINE_ENABLED"] is False
    assert app.config["LINE_FAIR_SHARE_MINUTES_PER_GPU_HOUR"] == 3
    # An old name is no misspelling: it is not offered a correction.
    assert not any("names no setting" in w for w in _warnings(caplog))


def test_an_old_name_in_a_test_mapping_is_read_as_the_new_one(tmp_path):
    app = _start(tmp_path, {"QUEUE_FAIR_SHARE_WINDOW": "1d"})
    assert (
        app.config["LINE_FAIR_SHARE_WINDOW"] == "1d" and "QUEUE_FAIR_SHARE_WINDOW" not in app.config
    )


@pytest.mark.parametrize("order", ["old first", "new first"])
def test_when_one_source_sets_both_names_the_new_one_wins_with_one_warning(
    tmp_path, monkeypatch, caplog, order
):
    lines = ["QUEUE_MAX_WAIT = '1h'", "LINE_MAX_WAIT = '2h'"]
    settings = tmp_path / "portal.py"
    settings.write_text("\n".join(lines if order == "old first" else lines[::-1]) + "\n")
    monkeypatch.setenv("PORTAL_SETTINGS", str(settings))
    monkeypatch.setenv("PORTAL_QUEUE_MAX_WAIT", "3h")
    monkeypatch.setenv("PORTAL_LINE_MAX_WAIT", "4h")
    with caplog.at_level("WARNING"):
        app = _start(tmp_path)
    assert app.config["LINE_MAX_WAIT"] == "4h"
    said = [w for w in _warnings(caplog) if "QUEUE_MAX_WAIT" in w]
    assert said == [
        "QUEUE_MAX_WAIT and its new name LINE_MAX_WAIT are both set: LINE_MAX_WAIT is used."
    ]


def test_a_later_source_overrides_an_earlier_one_whatever_name_it_uses(tmp_path, monkeypatch):
    settings = tmp_path / "portal.py"
    settings.write_text("LINE_MAX_WAIT = '2h'\n")
    monkeypatch.setenv("PORTAL_SETTINGS", str(settings))
    monkeypatch.setenv("PORTAL_QUEUE_MAX_WAIT", "5h")
    assert _start(tmp_path).config["LINE_MAX_WAIT"] == "5h"


def test_an_old_name_that_cannot_be_read_is_refused_under_its_new_name(tmp_path):
    from app.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="LINE_MAX_WAIT"):
        _start(tmp_path, {"QUEUE_MAX_WAIT": "soon"})
