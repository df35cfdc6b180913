"""Every time the API answers with is written one way, in UTC with its zone
(``app.formatting.machine_time``): the list, a deployment and its timeline."""

import re
from datetime import UTC, datetime, timedelta, timezone

from app.formatting import machine_time

WITH_ZONE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
TIME_KEYS = re.compile(r"(^at$|_at$)")


def _times(value, found):
    if isinstance(value, dict):
        for key, item in value.items():
            if TIME_KEYS.search(key) and item is not None:
                found.append((key, item))
            else:
                _times(item, found)
    elif isinstance(value, list):
        for item in value:
            _times(item, found)
    return found


def test_every_time_in_the_api_is_in_utc_with_its_zone(callers, app):
    ada = callers("ada")
    created = ada.launch(name="course").get_json()

    detail = ada.get(f"/api/v1/deployments/{created['id']}").get_json()
    listed = ada.get("/api/v1/deployments").get_json()

    times = _times(detail, []) + _times(listed, [])
    assert {"created_at", "at"} <= {key for key, _value in times}
    assert [(key, text) for key, text in times if not WITH_ZONE.match(text)] == []


def test_a_moment_is_written_for_machines_in_utc_whatever_zone_it_came_in():
    naive = datetime(2026, 11, 27, 14, 0, 5)
    rome = datetime(2026, 11, 27, 15, 0, 5, tzinfo=timezone(timedelta(hours=1)))
    assert machine_time(naive) == machine_time(rome) == "2026-11-27T14:00:05Z"
    assert machine_time(naive.replace(tzinfo=UTC)) == "2026-11-27T14:00:05Z"
    assert machine_time(None) is None
