"""The portal's Prometheus counters and histograms, which any feature may update: a core
module (it imports nothing of the portal but the clock), so every floor can reach it; the
``metrics`` feature serves them at /metrics with the figures it reads from the database.

Under gunicorn each worker writes its figures to files in ``PROMETHEUS_MULTIPROC_DIR`` and
``/metrics`` adds them up (prometheus_client's multiprocess mode); without that variable
(``flask run``, the tests) they live in this process. Labels name routes, operations, outcomes
and templates, never a person: a label per user would grow without bound and expose who is
who to anyone reading the dashboard.

Features still to come update their figures through the small functions at the end
(``count_notification``, ``count_lease_event``), so that label values stay few and fixed.
"""

from __future__ import annotations

from datetime import datetime

from prometheus_client import Counter, Histogram

from app.clock import utcnow

# Seconds; requests and orchestrator calls range from a few milliseconds to a timeout (30 s).
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# Seconds from launch to ready: the orchestrator takes minutes to an hour or more.
_READY_BUCKETS = (30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200)
# Seconds a sync pass takes: one call per due deployment and listing page.
_PASS_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

HTTP_REQUESTS = Counter(
    "portal_http_requests",
    "HTTP requests answered, by route (the URL rule, not the path) and status.",
    ["method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "portal_http_request_duration_seconds",
    "Time from a request's arrival in the app to its response, by route.",
    ["method", "route"],
    buckets=_LATENCY_BUCKETS,
)
ORCHESTRATOR_LATENCY = Histogram(
    "portal_orchestrator_request_duration_seconds",
    "Time each call to the orchestrator took, answered or not, by operation.",
    ["operation"],
    buckets=_LATENCY_BUCKETS,
)
ORCHESTRATOR_ERRORS = Counter(
    "portal_orchestrator_errors",
    "Calls to the orchestrator that failed, by operation and kind of error.",
    ["operation", "error"],
)
CALLBACKS_RECEIVED = Counter(
    "portal_callbacks_received",
    "Callbacks from the orchestrator that reached the portal, refused ones included.",
)
CALLBACKS_REFUSED = Counter(
    "portal_callbacks_refused",
    "Callbacks refused, by reason: unknown (no such deployment or a wrong secret), "
    "unreadable (not a deployment's JSON), mismatch (another deployment's uuid, or deleted).",
    ["reason"],
)
LAUNCH_TO_READY = Histogram(
    "portal_deployment_launch_to_ready_seconds",
    "Time from recording a launch to the deployment becoming ready, by template.",
    ["template"],
    buckets=_READY_BUCKETS,
)
SYNC_PASS_DURATION = Histogram(
    "portal_sync_pass_duration_seconds",
    "Time each pass of the deployment sync worker took.",
    buckets=_PASS_BUCKETS,
)
NOTIFICATIONS = Counter(
    "portal_notifications",
    "Notifications the portal sent or failed to send, by kind and outcome.",
    ["kind", "outcome"],
)
LEASE_EVENTS = Counter(
    "portal_lease_events",
    "Events of time-limited deployments (extended, warned, expired, ...), by event.",
    ["event"],
)

CALLBACK_REFUSALS = ("unknown", "unreadable", "mismatch")
NOTIFICATION_OUTCOMES = ("sent", "failed")


def observe_ready(template: str, launched_at: datetime | None) -> None:
    """Record a deployment's time from launch to ready. Call it once per deployment, from the
    one process that made the change (see ``app.deployments.timeline.change_status``)."""
    if launched_at is None:
        return
    LAUNCH_TO_READY.labels(template=template or "").observe(
        max((utcnow() - launched_at).total_seconds(), 0.0)
    )


def count_callback_refused(reason: str) -> None:
    """One refused callback; ``reason`` is one of ``CALLBACK_REFUSALS``."""
    if reason not in CALLBACK_REFUSALS:
        raise ValueError(f"unknown callback refusal: {reason!r}")
    CALLBACKS_REFUSED.labels(reason=reason).inc()


def count_notification(kind: str, outcome: str) -> None:
    """One notification of ``kind`` (a fixed name such as "deployment-ready", never an
    address) that was "sent" or "failed"."""
    if outcome not in NOTIFICATION_OUTCOMES:
        raise ValueError(f"unknown notification outcome: {outcome!r}")
    NOTIFICATIONS.labels(kind=kind, outcome=outcome).inc()


def count_lease_event(event: str) -> None:
    """One lease event, named as the timeline names it ("lease-extended", "lease-expired")."""
    LEASE_EVENTS.labels(event=event).inc()
