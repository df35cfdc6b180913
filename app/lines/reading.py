"""What a plan of the line reads: the waiting requests in order with their charges, the limits
of their owners and what those owners hold now, in a few grouped queries whatever the number
of deployments. The admission pass plans over every waiting request; a person's launch plans
over those sharing its owners (``ahead``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import NamedTuple

from flask import current_app
from sqlalchemy import bindparam, or_, select

from app.auth.models import User
from app.deployments.models import Deployment
from app.deployments.status import Status
from app.extensions import db
from app.lines import fairness, places
from app.lines.models import LineEntry
from app.quotas.limits import combine, limits_for_many, rows_for
from app.quotas.models import GROUP, IN_GROUP, USER, QuotaCharge, QuotaGpuCharge, member_subject
from app.quotas.usage import Usage, usage_of, usage_of_many


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while a plan is read and made. A plan of ten thousand
    requests builds some hundred thousand small objects, none of them in a cycle; the collector,
    woken every few hundred of them to walk the young objects (and now and then the whole
    heap), would otherwise take more time than the reading itself (measured: 100 of 136 ms).
    What the plan leaves behind is freed by reference counting as usual."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Waiting(NamedTuple):
    """A waiting request as a plan reads it."""

    deployment_id: int
    user_id: int
    group_name: str | None
    charge: dict


@cache
def _waiting_statement(by_owner: bool, by_group: bool):
    """The query of ``ordered_waiting``, built once per shape and kept: building it cost more
    than running it on a short line (a launch's cost box reads it each time). The owner and
    group go in as the parameters ``user_id`` and ``group_name``."""
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
            QuotaGpuCharge.model,
            QuotaGpuCharge.count,
        )
        .join(Deployment, Deployment.id == LineEntry.deployment_id)
        .outerjoin(QuotaCharge, QuotaCharge.deployment_id == LineEntry.deployment_id)
        .outerjoin(QuotaGpuCharge, QuotaGpuCharge.deployment_id == LineEntry.deployment_id)
        .where(Deployment.status == Status.WAITING, Deployment.deleted.is_(False))
    )
    if by_owner:
        owners = [LineEntry.user_id == bindparam("user_id")]
        if by_group:
            owners.append(Deployment.group_name == bindparam("group_name"))
        statement = statement.where(or_(*owners))
    return statement


def ordered_waiting(*, user_id: int | None = None, group_name: str | None = None) -> list:
    """The waiting requests, in the line's order, with their charges: every one, or those of
    ``user_id`` or charged to ``group_name`` (the only ones whose limits a launch of theirs
    shares). One query, run on the session's connection: ten thousand rows read through the
    ORM's result machinery cost several times more, and nothing here is an ORM object."""
    by_owner = user_id is not None
    by_group = by_owner and bool(group_name)
    statement = _waiting_statement(by_owner, by_group)
    values = {}
    if by_owner:
        values["user_id"] = user_id
    if by_group:
        values["group_name"] = group_name
    fair = current_app.config["LINE_FAIR_SHARE"]
    found: dict[int, tuple] = {}
    order_key = fairness.order_key
    for (
        deployment_id,
        owner,
        enqueued_at,
        fair_at,
        placed_at,
        group,
        cores,
        memory,
        disk,
        gpus,
        model,
        count,
    ) in db.session.connection().execute(statement, values):
        known = found.get(deployment_id)
        if known is None:
            charge = (
                {}
                if cores is None
                else {
                    "cores": cores,
                    "memory": memory,
                    "disk": disk,
                    "gpus": gpus,
                    "gpu_models": {},
                }
            )
            key = order_key(enqueued_at, fair_at, placed_at, deployment_id, fair_share=fair)
            known = found[deployment_id] = (key, Waiting(deployment_id, owner, group, charge))
        if model is not None and count and known[1].charge:
            known[1].charge["gpu_models"][model] = count
    return [waiting for _key, waiting in sorted(found.values(), key=lambda pair: pair[0])]


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
                for key, amount in places.needs_of(row.user_id, row.group_name, charge).items()
                if amount > 0 and limits.get(key) is not None
            }
        requests.append(fairness.Request(row.deployment_id, needs))
    return requests


def _members_inside(rows) -> list[tuple]:
    """The owners of the plan that are people's own limits inside a group (set by its
    managers, ``app.quotas.member_limits``), with what each holds there: one query for the
    limits, one per person and group that has any (few: managers set them one by one)."""
    pairs = sorted({(row.user_id, row.group_name) for row in rows if row.group_name})
    keys = {(IN_GROUP, member_subject(uid, name)): (uid, name) for uid, name in pairs}
    stored = rows_for(keys)
    owners = []
    for key, limits in stored.items():
        inside = combine(limits, [], None)
        if not inside.any_finite:
            continue
        uid, name = keys[key]
        held = usage_of(user_id=uid, group_name=name, models=inside.gpu_models)
        owners.append((IN_GROUP, key[1], inside, held))
    return owners


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
    owners += _members_inside(rows)
    for scope, subject, limit_set, usage in owners:
        usage = usage or Usage()
        for resource in places.RESOURCES:
            key = (scope, subject, resource, None)
            limits[key] = limit_set.get(resource) if limit_set else None
            used[key] = usage.get(resource)
        for model, limit in (limit_set.gpu_models if limit_set else {}).items():
            key = (scope, subject, "gpus", model)
            limits[key] = limit
            used[key] = usage.gpu_models.get(model, 0)
    return limits, used
