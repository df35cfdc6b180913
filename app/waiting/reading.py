"""What a plan of the line reads: the waiting requests in order with their charges, the limits
of their owners and what those owners hold now, in a few grouped queries whatever the number
of deployments. The admission pass plans over every waiting request; a person's launch plans
over those sharing its owners (``ahead``).
"""

from __future__ import annotations

from typing import NamedTuple

from flask import current_app
from sqlalchemy import or_, select

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.quotas.limits import combine, limits_for_many, rows_for
from app.quotas.models import GROUP, USER, QuotaCharge, QuotaGpuCharge
from app.quotas.usage import Usage, usage_of_many
from app.waiting import fairness, lines
from app.waiting.models import LineEntry


class Waiting(NamedTuple):
    """A waiting request as a plan reads it."""

    deployment_id: int
    user_id: int
    group_name: str | None
    charge: dict


def ordered_waiting(*, user_id: int | None = None, group_name: str | None = None) -> list:
    """The waiting requests, in the line's order, with their charges: every one, or those of
    ``user_id`` or charged to ``group_name`` (the only ones whose limits a launch of theirs
    shares)."""
    statement = (
        select(
            LineEntry.deployment_id,
            LineEntry.user_id,
            LineEntry.enqueued_at,
            LineEntry.fair_at,
            LineEntry.placed_at,
            Deployment.group_name,
            QuotaCharge.cores,
            QuotaCharge.memory,
            QuotaCharge.disk,
            QuotaCharge.gpus,
        )
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .outerjoin(QuotaCharge, QuotaCharge.deployment_id == LineEntry.deployment_id)
        .where(Deployment.status == Status.WAITING, Deployment.deleted.is_(False))
    )
    if user_id is not None:
        owners = [LineEntry.user_id == user_id]
        if group_name:
            owners.append(Deployment.group_name == group_name)
        statement = statement.where(or_(*owners))
    fair = current_app.config["QUEUE_FAIR_SHARE"]
    found = []
    for row in db.session.execute(statement):
        charge = (
            {}
            if row.cores is None
            else {
                "cores": row.cores,
                "memory": row.memory,
                "disk": row.disk,
                "gpus": row.gpus,
                "gpu_models": {},
            }
        )
        key = fairness.order_key(
            row.enqueued_at, row.fair_at, row.placed_at, row.deployment_id, fair_share=fair
        )
        found.append((key, Waiting(row.deployment_id, row.user_id, row.group_name, charge)))
    found.sort(key=lambda pair: pair[0])
    rows = [waiting for _key, waiting in found]
    _add_gpu_models(rows)
    return rows


def _add_gpu_models(rows: list[Waiting]) -> None:
    """The GPUs per model of each of ``rows``, from their plain columns (``app.quotas.charges``
    keeps them in step with the JSON record, which is slower to read ten thousand times)."""
    by_id = {row.deployment_id: row.charge for row in rows if row.charge}
    if not by_id:
        return
    statement = select(QuotaGpuCharge.deployment_id, QuotaGpuCharge.model, QuotaGpuCharge.count)
    if len(by_id) > 500:  # every waiting request, or nearly: join rather than list ids
        statement = statement.join(
            LineEntry, LineEntry.deployment_id == QuotaGpuCharge.deployment_id
        )
    else:
        statement = statement.where(QuotaGpuCharge.deployment_id.in_(list(by_id)))
    for deployment_id, model, count in db.session.execute(statement):
        charge = by_id.get(deployment_id)
        if charge is not None:
            charge["gpu_models"][model] = count


def requests_of(rows: list[Waiting], limits: dict) -> list[fairness.Request]:
    """The plan's requests: what each needs of the limits that bind (an unlimited resource
    holds no one back, so it is left out), worked out once per owner and size."""
    shapes: dict[tuple, dict] = {}
    requests = []
    for row in rows:
        charge = row.charge
        shape = (
            row.user_id,
            row.group_name,
            charge.get("cores"),
            charge.get("memory"),
            charge.get("disk"),
            charge.get("gpus"),
            tuple(sorted((charge.get("gpu_models") or {}).items())),
        )
        needs = shapes.get(shape)
        if needs is None:
            needs = shapes[shape] = {
                key: amount
                for key, amount in lines.needs_of(row.user_id, row.group_name, charge).items()
                if amount > 0 and limits.get(key) is not None
            }
        requests.append(fairness.Request(row.deployment_id, needs))
    return requests


def room_of(rows) -> tuple[dict, dict]:
    """The limits (None: unlimited) and what is held now, for every owner of ``rows``, by
    the plan's keys (``fairness.Key``). What is held is summed only for owners with a limit."""
    user_ids = sorted({row.user_id for row in rows})
    groups = sorted({row.group_name for row in rows if row.group_name})
    people = db.session.execute(select(User.id, User.groups).where(User.id.in_(user_ids))).all()
    own = limits_for_many(people)
    stored = rows_for([(GROUP, name) for name in groups])
    pools = {name: combine(stored.get((GROUP, name), {}), [], None) for name in groups}
    models = set()
    for found in (*own.values(), *pools.values()):
        models.update(model for model, limit in found.gpu_models.items() if limit is not None)
    held_by_user, held_by_group = usage_of_many(
        user_ids=[uid for uid in user_ids if own.get(uid) and own[uid].any_finite],
        group_names=[name for name in groups if pools[name].any_finite],
        models=models,
    )
    limits, used = {}, {}
    owners = [(USER, str(uid), own.get(uid), held_by_user.get(uid)) for uid in user_ids]
    owners += [(GROUP, name, pools[name], held_by_group.get(name)) for name in groups]
    for scope, subject, limit_set, usage in owners:
        usage = usage or Usage()
        for resource in lines.RESOURCES:
            key = (scope, subject, resource, None)
            limits[key] = limit_set.get(resource) if limit_set else None
            used[key] = usage.get(resource)
        for model, limit in (limit_set.gpu_models if limit_set else {}).items():
            key = (scope, subject, "gpus", model)
            limits[key] = limit
            used[key] = usage.gpu_models.get(model, 0)
    return limits, used
