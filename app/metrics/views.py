"""``/metrics``: the Prometheus text format, for loopback clients and bearers of METRICS_TOKEN.

No session, cookie or CSRF token is involved: Prometheus sends none. The client address is
``request.remote_addr``, which is the forwarded one when PROXY_FIX trusts proxies.
"""

from __future__ import annotations

import hmac
import ipaddress
import os

from flask import Blueprint, current_app, request
from flask_babel import gettext as _
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from werkzeug.wrappers import Response

from app.metrics.collectors import DatabaseCollector

bp = Blueprint("metrics", __name__)


@bp.get("/metrics")
def scrape():
    refusal = _refusal()
    if refusal is not None:
        return refusal
    response = Response(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
    response.headers["Cache-Control"] = "no-store"
    return response


def _registry() -> CollectorRegistry:
    """This scrape's registry: every process's figures when gunicorn runs several workers
    (PROMETHEUS_MULTIPROC_DIR), else this process's, plus the database's."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    registry.register(DatabaseCollector())
    return registry


class _ThisProcess:
    """The default registry's figures, served through this scrape's registry."""

    def collect(self):
        return REGISTRY.collect()


def _refusal() -> Response | None:
    """None when the caller may read the metrics, else the answer that refuses them."""
    if _is_loopback(request.remote_addr):
        return None
    token = current_app.config["METRICS_TOKEN"]
    if not token:
        return _refuse(403, _("Metrics are served to this host only."))
    scheme, _space, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), token.encode()):
        return None
    refused = _refuse(401, _("Metrics need the bearer token set in METRICS_TOKEN."))
    refused.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return refused


def _refuse(status: int, sentence: str) -> Response:
    return Response(sentence + "\n", status=status, content_type="text/plain; charset=utf-8")


def _is_loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    # "::ffff:127.0.0.1" is how a dual-stack socket shows an IPv4 loopback client.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback
