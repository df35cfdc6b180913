"""Keeps each deployment's charge in plain columns (``quota_charges``, ``quota_gpu_charges``)
in step with ``Deployment.charge``, whoever writes it, within the same transaction.

The JSON on the deployment stays the record; these rows only make summing fast (PostgreSQL
parses a JSON value again for every key read, which a check over a thousand deployments
would pay a thousand times).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.orm import attributes

from app.deployments.models import Deployment
from app.extensions import listen_once
from app.quotas.models import QuotaCharge, QuotaGpuCharge


def charge_rows(deployment_id: int, charge: Any) -> tuple[dict | None, list[dict]]:
    """The ``quota_charges`` row and the ``quota_gpu_charges`` rows for one charge."""
    if not isinstance(charge, dict) or not charge:
        return None, []

    def number(key: str) -> float:
        value = charge.get(key)
        return value if isinstance(value, int | float) and not isinstance(value, bool) else 0

    row = {
        "deployment_id": deployment_id,
        "cores": float(number("cores")),
        "memory": int(number("memory")),
        "disk": int(number("disk")),
        "gpus": int(number("gpus")),
    }
    models = charge.get("gpu_models") if isinstance(charge.get("gpu_models"), dict) else {}
    gpu_rows = [
        {"deployment_id": deployment_id, "model": str(model)[:64], "count": int(count)}
        for model, count in models.items()
        if isinstance(count, int | float) and count
    ]
    return row, gpu_rows


def _write(connection, deployment: Deployment) -> None:
    connection.execute(delete(QuotaGpuCharge).where(QuotaGpuCharge.deployment_id == deployment.id))
    connection.execute(delete(QuotaCharge).where(QuotaCharge.deployment_id == deployment.id))
    row, gpu_rows = charge_rows(deployment.id, deployment.charge)
    if row:
        connection.execute(insert(QuotaCharge), [row])
    if gpu_rows:
        connection.execute(insert(QuotaGpuCharge), gpu_rows)


def listen() -> None:
    """Keep the charge tables in step with every write of ``Deployment.charge``."""
    listen_once(Deployment, "after_insert", _inserted)
    listen_once(Deployment, "after_update", _updated)


def _inserted(_mapper, connection, deployment: Deployment) -> None:
    if deployment.charge:
        _write(connection, deployment)


def _updated(_mapper, connection, deployment: Deployment) -> None:
    if attributes.get_history(deployment, "charge").has_changes():
        _write(connection, deployment)
