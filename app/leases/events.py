"""Recording a lease event on the deployment's timeline, counted for the operators' metrics.

Every lease event goes through ``record`` so the timeline (which notifications read) and the
``portal_lease_events`` counter never disagree on what happened.
"""

from __future__ import annotations

from app.deployments.models import Deployment, DeploymentEvent
from app.deployments.timeline import record_event
from app.instruments import count_lease_event


def record(
    deployment: Deployment, to_status: str | None, *, kind: str, **fields
) -> DeploymentEvent:
    """``record_event`` for a lease event of ``kind`` ("lease-warned", "failed-cleanup"...),
    counted once. The caller commits (a rolled-back pass is counted anyway: rare, and a
    counter may not go down)."""
    event = record_event(deployment, to_status, kind=kind, **fields)
    count_lease_event(kind)
    return event
