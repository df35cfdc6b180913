"""Reading the orchestrator's JSON: minute-precision times, and statuses nobody listed."""

from datetime import datetime

import pytest

from app.backends.paas.errors import OrchestratorError, error_message
from app.backends.paas.schemas import DeploymentState, parse_time, still_changing


def test_times_with_minute_precision_are_read_as_utc():
    assert parse_time("2016-06-01T10:47+0000") == datetime(2016, 6, 1, 10, 47)
    assert parse_time("2016-06-01T12:47+0200") == datetime(2016, 6, 1, 10, 47)


@pytest.mark.parametrize("text", [None, "", "yesterday", 42])
def test_unreadable_times_become_none(text):
    assert parse_time(text) is None


def test_unknown_statuses_and_tasks_are_kept_and_keep_being_polled():
    state = DeploymentState.from_json({"uuid": "u", "status": "CREATE_QUEUED", "task": "NEW"})
    assert (state.status, state.task, state.in_progress) == ("CREATE_QUEUED", "NEW", True)
    assert not still_changing("UNKNOWN")
    assert DeploymentState.from_json({"uuid": "u"}).status == "UNKNOWN"


def test_a_deployment_without_uuid_is_refused():
    with pytest.raises(ValueError):
        DeploymentState.from_json({"status": "CREATE_COMPLETE"})


class FakeResponse:
    def __init__(self, body):
        self.body = body

    def json(self):
        if self.body is None:
            raise ValueError("no JSON")
        return self.body


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"code": 400, "title": "Bad Request", "message": "Bad input"}, "Bad input"),
        ({"error": "invalid_token", "error_description": "Token expired"}, "Token expired"),
        ({"error": "invalid_token"}, "invalid_token"),
        (None, None),
        (["not", "a", "mapping"], None),
    ],
)
def test_both_error_shapes_are_read(body, expected):
    assert error_message(FakeResponse(body)) == expected


def test_errors_without_a_message_get_a_default_one():
    assert OrchestratorError().message == "The orchestrator answered with an error."
