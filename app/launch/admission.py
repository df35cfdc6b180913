"""Starting a request from the line: the admission pass (``app.lines.admission``, which plans
in the line's order) with the launch's own start of each planned request.

A request starts exactly once, under the lock of its own row while it still waits
(``app.lines.operations.held_entry``), and the launch decision is taken for it under the
quotas' locks as for any launch (``workflow.admit``), with the limits as they are at that
moment: a plan another worker has made out of date stops the pass ("short").
"""

from __future__ import annotations

import logging

from app.deployments.errors import LaunchError
from app.deployments.secrets import unseal
from app.extensions import db
from app.launch import workflow
from app.launch.request import LeaseChoice
from app.lines import admission, operations
from app.lines.admission import AdmissionResult
from app.quotas.errors import OverBudget, QuotaExceeded

log = logging.getLogger(__name__)


def admit_once() -> AdmissionResult:
    """One admission pass (``app.lines.admission``), starting each planned request with
    ``start``; commits what it does."""
    return admission.admit_once(start)


def start(deployment_id: int) -> str:
    """Start one waiting request as a person's launch would; "admitted", "gone" (it no longer
    waits), "short" (its quotas no longer have room), "budget" (a budget
    it waits to renew has no room yet) or "failed" (its submit failed)."""
    try:
        entry = operations.held_entry(deployment_id)
    except operations.NotWaiting:
        return "gone"
    deployment = entry.deployment
    parameters = unseal(entry.inputs_sealed)
    lease = LeaseChoice((entry.options or {}).get("lease_minutes"))
    db.session.delete(entry)
    try:
        workflow.admit(deployment, parameters, lease)
    except QuotaExceeded:
        return "short"
    except OverBudget:
        # Waiting for a budget's renewal: it keeps its place, and the pass goes on with the
        # others (the plan knows nothing of budgets, so it is not out of date).
        return "budget"
    except LaunchError as error:
        log.warning("Request %s admitted but not launched: %s", deployment_id, error.message)
        return "failed"
    log.info("Request %s admitted from the line", deployment_id)
    return "admitted"
