"""Prometheus metrics for operators: ``/metrics``, the request figures and the database
collectors. A face on the top floor (it reads deployments and quotas); the counters the
features update live below them all, in the core module ``app.instruments``.
"""

from __future__ import annotations

import time

from flask import Flask, request
from werkzeug.wrappers import Response

from app.instruments import HTTP_LATENCY, HTTP_REQUESTS

_STARTED = "portal.metrics.started"


def init_metrics(app: Flask) -> None:
    """Measure every request the app answers (``/metrics`` is served by its blueprint). The
    clock starts before any other before-request function, so refusals made there (unreadable
    forms) are timed too."""
    app.before_request_funcs.setdefault(None, []).insert(0, _start_clock)
    app.after_request(_count_request)


def _start_clock() -> None:
    request.environ[_STARTED] = time.perf_counter()


def _count_request(response: Response) -> Response:
    # The URL rule, never the path: paths carry ids and secrets, and would make a series each.
    route = request.url_rule.rule if request.url_rule is not None else "(unmatched)"
    HTTP_REQUESTS.labels(method=request.method, route=route, status=str(response.status_code)).inc()
    started = request.environ.get(_STARTED)
    if started is not None:
        HTTP_LATENCY.labels(method=request.method, route=route).observe(
            time.perf_counter() - started
        )
    return response
