"""Durations as people type them: minutes, hours and days, and lists of them."""

import pytest

from app.leases.durations import (
    format_duration,
    format_durations,
    parse_duration,
    parse_durations,
)
from app.leases.errors import InvalidPolicy


@pytest.fixture(autouse=True)
def context(app):
    with app.app_context():
        yield


@pytest.mark.parametrize(
    ("text", "minutes"), [("2m", 2), ("90m", 90), ("8h", 480), ("3d", 4320), (" 1D ", 1440)]
)
def test_durations_read_as_minutes(text, minutes):
    assert parse_duration(text) == minutes


def test_lists_are_read_longest_first_without_repeats():
    assert parse_durations("1m,2m, 2m") == [2, 1]
    assert parse_durations("1h,24h") == [1440, 60]


@pytest.mark.parametrize(("minutes", "text"), [(2, "2m"), (90, "90m"), (480, "8h"), (4320, "3d")])
def test_durations_are_written_back_in_the_shortest_exact_unit(minutes, text):
    assert format_duration(minutes) == text


def test_a_list_is_written_back_as_typed():
    assert format_durations([1440, 60]) == "1d,1h"


@pytest.mark.parametrize("text", ["", "5", "5s", "abc", "1,5h"])
def test_anything_else_is_refused_with_an_example(text):
    with pytest.raises(InvalidPolicy, match="e.g. 90m, 8h"):
        parse_duration(text, label="Cap")


def test_an_empty_list_is_refused():
    with pytest.raises(InvalidPolicy, match="one duration or more"):
        parse_durations(" , ", label="Warnings")
