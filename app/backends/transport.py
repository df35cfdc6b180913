"""What can go wrong between a backend's client and its server, named once for every client.

A client sends each call through ``sent`` and reads each JSON answer with ``decoded``; it passes
its own ``TransportErrors`` (its error classes and the sentences that name its service), so that
a timeout, a dropped connection or an unreadable answer raises the same kind of error whichever
backend met it, while each backend keeps its own classes. Every answer is read whole within an
overall deadline and under a size cap (``app.remote``): one that dribbles is given up at the
deadline as unanswered, one too large as unreadable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError

from app import remote
from app.backends.base import BackendError

Timeout = remote.Timeout


@dataclass(frozen=True)
class TransportErrors:
    """A client's error classes and words for transport failures. The messages are lazy
    strings or plain ones; each error is raised with its class's default message otherwise."""

    # The call never reached the server: it certainly did nothing.
    unreachable: type[BackendError]
    # The call was sent and no answer came (timed out, connection dropped): it may have been
    # carried out.
    unanswered: type[BackendError]
    unanswered_message: Any
    # The call could not be made at all (a malformed address, a broken session).
    not_called: type[BackendError]
    not_called_message: Any
    # An answer came that is not the JSON object expected.
    unreadable: type[BackendError]
    unreadable_message: Any
    # The service as the subject of a sentence ("The orchestrator"), for the deadline's and
    # the size cap's sentences.
    service: Any


def timeout_pair(timeout: Timeout) -> tuple[float, float]:
    """(connect, read) seconds from one number or a pair (the *_TIMEOUT settings)."""
    if isinstance(timeout, list | tuple):
        connect, read = timeout
        return float(connect), float(read)
    return float(timeout), float(timeout)


def never_sent(error: requests.RequestException) -> bool:
    """Whether ``error`` happened before the request could reach the server."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    cause = error.args[0] if error.args else None
    if isinstance(cause, MaxRetryError):
        cause = cause.reason
    return isinstance(cause, NewConnectionError | ConnectTimeoutError)


@contextmanager
def transport_errors(errors: TransportErrors) -> Iterator[None]:
    """Turn the ``requests`` failures raised inside into ``errors``' classes. The chain is
    cut (``from None``): it would repeat the request, headers and credentials included."""
    try:
        yield
    except remote.AnswerTooSlow as error:
        raise errors.unanswered(error.describe(errors.service)) from None
    except remote.AnswerTooLarge as error:
        raise errors.unreadable(error.describe(errors.service)) from None
    except (requests.ConnectionError, requests.Timeout) as error:
        if never_sent(error):
            raise errors.unreachable() from None
        raise errors.unanswered(str(errors.unanswered_message)) from None
    except requests.RequestException:
        raise errors.not_called(str(errors.not_called_message)) from None


def sent(
    session: requests.Session,
    method: str,
    url: str,
    *,
    errors: TransportErrors,
    timeout: Timeout,
    max_bytes: int = remote.DEFAULT_MAX_BYTES,
    **kwargs,
):
    """``session``'s answer to one call, read whole within ``timeout``'s deadline
    (``remote.deadline_of``) and at most ``max_bytes`` long, redirects not followed (requests
    would turn a POST or DELETE into a GET and report its 200 as success, and carry
    credentials to another host). Raises ``errors``' classes for transport failures; the
    status is the caller's to read."""

    def send(**streaming):
        return session.request(
            method, url, allow_redirects=False, timeout=timeout, **streaming, **kwargs
        )

    with transport_errors(errors):
        return remote.bounded(send, deadline=remote.deadline_of(timeout), max_bytes=max_bytes)


def decoded(response: requests.Response, errors: TransportErrors) -> dict:
    """The JSON object ``response`` carries. Raises ``errors.unreadable`` (with the status)
    when it carries none."""
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise errors.unreadable(str(errors.unreadable_message), status_code=response.status_code)
    return answer
