"""The line's settings: durations written as leases write them, refused in words otherwise."""

import pytest

from app import create_app
from app.errors import ConfigurationError
from tests.conftest import TEST_CONFIG


@pytest.mark.parametrize(
    "name", ["LINE_MAX_WAIT", "LINE_FAIR_SHARE_WINDOW", "LINE_FAIR_SHARE_MAX_DELAY"]
)
def test_a_duration_setting_that_cannot_be_read_stops_the_start_naming_it(tmp_path, name):
    with pytest.raises(ConfigurationError) as raised:
        create_app({**TEST_CONFIG, name: "three days"}, instance_path=str(tmp_path))
    assert name in str(raised.value) and "90m, 8h, 3d" in str(raised.value)


def test_the_defaults_wait_three_days_at_most(tmp_path):
    app = create_app(TEST_CONFIG, instance_path=str(tmp_path))
    assert app.config["LINE_MAX_WAIT"] == "3d" and app.config["LINE_FAIR_SHARE"] is True
