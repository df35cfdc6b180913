"""Both clients meet transport failures through one door (``app.backends.transport``): the
same failure is the same kind of error whichever backend met it, each in its client's own
class and words."""

import pytest
import requests
from requests.adapters import BaseAdapter

from app.backends import base
from app.backends.im.client import ImClient, auth_lines
from app.backends.paas import errors as paas_errors
from app.backends.paas.client import OrchestratorClient


class Failing(BaseAdapter):
    """A transport that fails every call with ``error``, or answers ``body`` with a 200."""

    def __init__(self, error=None, body=b""):
        super().__init__()
        self.error, self.body = error, body

    def send(self, request, **kwargs):
        if self.error is not None:
            raise self.error
        response = requests.Response()
        response.status_code, response._content, response.request = 200, self.body, request
        response.headers["Content-Type"] = "application/json"
        return response

    def close(self):
        pass


def _session(adapter) -> requests.Session:
    session = requests.Session()
    session.mount("http://", adapter)
    return session


def _ask_orchestrator(session):
    client = OrchestratorClient("http://orchestrator.test", lambda: "token", 1, session=session)
    return client.info(auth=False)


def _ask_im(session):
    lines = auth_lines(["id = dummy; type = Dummy"], username="portal", password="secret-pw")
    return ImClient("http://im.test", lines, 1, session=session).state("some-infrastructure")


ASKERS = {"paas": _ask_orchestrator, "im": _ask_im}
# The error each client raises as its own for the same failure (the IM client's are the
# portal's classes).
OWN = {
    "paas": {
        "unreachable": paas_errors.Unreachable,
        "unanswered": paas_errors.OrchestratorUnavailable,
    },
    "im": {"unreachable": base.Unreachable, "unanswered": base.Unavailable},
}


@pytest.mark.parametrize("backend", ["paas", "im"])
@pytest.mark.parametrize(
    ("failure", "kind", "named"),
    [
        (requests.ConnectTimeout("connect timed out"), base.Unreachable, "unreachable"),
        (requests.ReadTimeout("read timed out"), base.Unavailable, "unanswered"),
        (requests.ConnectionError("connection dropped"), base.Unavailable, "unanswered"),
        (requests.exceptions.InvalidHeader("bad header"), base.BackendError, None),
    ],
)
def test_a_transport_failure_is_the_same_kind_of_error_at_every_backend(
    app, backend, failure, kind, named
):
    with app.test_request_context(), pytest.raises(kind) as raised:
        ASKERS[backend](_session(Failing(failure)))
    if named is not None:
        assert type(raised.value) is OWN[backend][named]
    else:
        assert not isinstance(raised.value, base.Unavailable)
    if kind is base.Unavailable:
        assert not isinstance(raised.value, base.Unreachable)
        assert "did not answer in time, or the connection dropped" in raised.value.message
    # The chain is cut: it would repeat the request, credentials included.
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert "secret-pw" not in repr(raised.value) + str(raised.value)


@pytest.mark.parametrize("backend", ["paas", "im"])
@pytest.mark.parametrize("body", [b"<html>not json</html>", b"[1, 2]", b""])
def test_an_answer_that_is_no_json_object_is_unreadable_at_every_backend(app, backend, body):
    with app.test_request_context(), pytest.raises(base.BackendError) as raised:
        ASKERS[backend](_session(Failing(body=body)))
    assert "answer" in raised.value.message and raised.value.status_code == 200
