"""What is held right now: the sums of the charges of the deployments that hold (see
``app.quotas.holding``), for one user or one group pool."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from sqlalchemy import and_, bindparam, func, literal_column, select, union_all
from sqlalchemy.orm import aliased

from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.accounting import ANY_GPU_MODEL
from app.quotas.holding import holding_clause
from app.quotas.models import QuotaCharge, QuotaGpuCharge
from app.quotas.usage_reading import read


@dataclass
class Usage:
    """Totals held: cores, memory and disk (bytes), GPUs in total and by model, deployments."""

    cores: float = 0.0
    memory: int = 0
    disk: int = 0
    gpus: int = 0
    deployments: int = 0
    gpu_models: dict[str, int] = field(default_factory=dict)

    def get(self, key: str) -> float:
        return getattr(self, key)


@dataclass(frozen=True)
class Holder:
    """One deployment holding resources, as named in messages and panels."""

    id: int
    name: str
    status: str
    charge: dict
    group_name: str | None

    def amount(self, key: str, model: str | None = None) -> float:
        """How much of ``key`` (or of GPU ``model``) this deployment holds."""
        if model is not None:
            return (self.charge.get("gpu_models") or {}).get(model, 0)
        if key == "deployments":
            return 1
        value = self.charge.get(key) or 0
        return value if isinstance(value, int | float) else 0


def _owned_by(user_id: int | None, group_name: str | None):
    if group_name is not None and user_id is not None:
        return (Deployment.group_name == group_name) & (Deployment.user_id == user_id)
    if group_name is not None:
        return Deployment.group_name == group_name
    return Deployment.user_id == user_id


@lru_cache(maxsize=64)
def _usage_statement(by_group: bool, model_count: int, excluding: bool, by_user: bool = True):
    """The sums' statement for one shape of question, built once: the quota check runs it on
    every launch and every live cost update, and building it anew cost more than running it.
    Values come in as bound parameters (``group``, ``user``, ``excluding``, ``model_0``…)."""
    owned = [holding_clause()]
    if by_group:
        owned.append(Deployment.group_name == bindparam("group"))
    if by_user:
        owned.append(Deployment.user_id == bindparam("user"))
    if excluding:
        owned.append(Deployment.id != bindparam("excluding"))
    # One scan: each model's row is joined beside the charge (at most one per deployment,
    # by the key), so the per-model sums cost no second pass over the deployments.
    per_model = [aliased(QuotaGpuCharge, name=f"gpu_{i}") for i in range(model_count)]
    statement = (
        select(
            func.count(Deployment.id),
            func.coalesce(func.sum(QuotaCharge.cores), 0),
            func.coalesce(func.sum(QuotaCharge.memory), 0),
            func.coalesce(func.sum(QuotaCharge.disk), 0),
            func.coalesce(func.sum(QuotaCharge.gpus), 0),
            *(func.coalesce(func.sum(alias.count), 0) for alias in per_model),
        )
        .select_from(Deployment)
        .outerjoin(QuotaCharge, QuotaCharge.deployment_id == Deployment.id)
    )
    for i, alias in enumerate(per_model):
        joined = and_(alias.deployment_id == Deployment.id, alias.model == bindparam(f"model_{i}"))
        statement = statement.outerjoin(alias, joined)
    return statement.where(*owned)


def usage_of(
    *,
    user_id: int | None = None,
    group_name: str | None = None,
    models: Iterable[str] = (),
    excluding: int | None = None,
) -> Usage:
    """What ``user_id``'s deployments (or those charged to ``group_name``; with both, the
    person's charged to the group) hold now, with the GPUs of each of ``models`` (only those:
    per-model sums are read for the limited models), leaving out the deployment ``excluding``
    (one being reserved that is already stored)."""
    models = sorted(set(models))
    by_group = group_name is not None
    by_user = user_id is not None or not by_group
    statement = _usage_statement(by_group, len(models), excluding is not None, by_user)
    values = {}
    if by_group:
        values["group"] = group_name
    if by_user:
        values["user"] = user_id
    if excluding is not None:
        values["excluding"] = excluding
    values.update((f"model_{i}", model) for i, model in enumerate(models))
    return _usage(read(statement, values).one(), models, models)


@lru_cache(maxsize=64)
def _pair_statement(model_count: int, excluding: bool):
    """``_usage_statement``'s sums of a person's and of a group pool's, as one statement of
    two parts (each read from its own index, as when asked alone), tagged 0 and 1."""
    mine = _usage_statement(False, model_count, excluding, True)
    ours = _usage_statement(True, model_count, excluding, False)
    return union_all(
        mine.add_columns(literal_column("0").label("whose")),
        ours.add_columns(literal_column("1").label("whose")),
    )


def usage_pair(
    user_id: int,
    group_name: str,
    user_models: Iterable[str] = (),
    group_models: Iterable[str] = (),
    excluding: int | None = None,
) -> tuple[Usage, Usage]:
    """``usage_of(user_id=...)`` with ``user_models`` and ``usage_of(group_name=...)`` with
    ``group_models``, the same figures, asked in one statement (a launch charged to a group
    needs both)."""
    user_models, group_models = sorted(set(user_models)), sorted(set(group_models))
    models = sorted({*user_models, *group_models})
    values = {"user": user_id, "group": group_name}
    if excluding is not None:
        values["excluding"] = excluding
    values.update((f"model_{i}", model) for i, model in enumerate(models))
    rows = {
        row[-1]: row for row in read(_pair_statement(len(models), excluding is not None), values)
    }
    return _usage(rows[0], models, user_models), _usage(rows[1], models, group_models)


def _usage(row, models: list[str], wanted: list[str]) -> Usage:
    """The Usage of a row of sums (``_usage_statement``'s columns) of ``models``, with the
    GPUs of the ``wanted`` ones."""
    column = {model: 5 + i for i, model in enumerate(models)}
    return Usage(
        deployments=row[0],
        cores=round(float(row[1]), 3),
        memory=int(row[2]),
        disk=int(row[3]),
        gpus=int(row[4]),
        gpu_models={model: int(row[column[model]]) for model in wanted},
    )


@lru_cache(maxsize=16)
def _pool_statement(model_count: int):
    """``_usage_statement``'s sums for a group pool, per person: built once per number of
    models, the group bound as ``group`` and the models as ``model_0``…"""
    sums = _usage_statement(True, model_count, False, False)
    return sums.add_columns(Deployment.user_id).group_by(Deployment.user_id)


def pool_and_people(group_name: str, models: Iterable[str] = ()) -> tuple[Usage, dict[int, int]]:
    """What the deployments charged to ``group_name`` hold now (``usage_of`` of the group,
    the same figures), and how many of them each person runs: one grouped scan of the
    group's deployments for both, where a page showing the pool and its members' counts
    would scan them twice."""
    models = sorted(set(models))
    values = {"group": group_name}
    values.update((f"model_{i}", model) for i, model in enumerate(models))
    sums = [0, 0.0, 0, 0, 0, *(0 for _ in models)]
    people = {}
    for row in db.session.execute(_pool_statement(len(models)), values):
        *figures, user_id = row
        people[user_id] = int(figures[0])
        for i, value in enumerate(figures):
            sums[i] += value or 0
    pool = Usage(
        deployments=int(sums[0]),
        cores=round(float(sums[1]), 3),
        memory=int(sums[2]),
        disk=int(sums[3]),
        gpus=int(sums[4]),
        gpu_models={model: int(sums[5 + i]) for i, model in enumerate(models)},
    )
    return pool, people


def usage_of_many(
    *, user_ids: Iterable[int] = (), group_names: Iterable[str] = (), models: Iterable[str] = ()
) -> tuple[dict[int, Usage], dict[str, Usage]]:
    """``usage_of`` for many owners at once (two grouped queries): what each of ``user_ids``
    and each pool of ``group_names`` holds now, with the GPUs of each of ``models``. Owners
    holding nothing are given an empty Usage."""
    models = sorted(set(models))
    users = {user_id: Usage(gpu_models=dict.fromkeys(models, 0)) for user_id in user_ids}
    groups = {name: Usage(gpu_models=dict.fromkeys(models, 0)) for name in group_names}
    for column, found in ((Deployment.user_id, users), (Deployment.group_name, groups)):
        if not found:
            continue
        sums = (
            select(
                column,
                func.count(Deployment.id),
                func.coalesce(func.sum(QuotaCharge.cores), 0),
                func.coalesce(func.sum(QuotaCharge.memory), 0),
                func.coalesce(func.sum(QuotaCharge.disk), 0),
                func.coalesce(func.sum(QuotaCharge.gpus), 0),
            )
            .select_from(Deployment)
            .outerjoin(QuotaCharge, QuotaCharge.deployment_id == Deployment.id)
        )
        where = (holding_clause(), column.in_(list(found)))
        for owner, count, cores, memory, disk, gpus in db.session.execute(
            sums.where(*where).group_by(column)
        ):
            usage = found[owner]
            usage.deployments, usage.cores = count, round(float(cores), 3)
            usage.memory, usage.disk, usage.gpus = int(memory), int(disk), int(gpus)
        if models:
            per_model = (
                select(column, QuotaGpuCharge.model, func.sum(QuotaGpuCharge.count))
                .select_from(Deployment)
                .join(QuotaGpuCharge, QuotaGpuCharge.deployment_id == Deployment.id)
                .where(*where, QuotaGpuCharge.model.in_(models))
                .group_by(column, QuotaGpuCharge.model)
            )
            for owner, model, count in db.session.execute(per_model):
                found[owner].gpu_models[model] = int(count or 0)
    return users, groups


def holders_of(*, user_id: int | None = None, group_name: str | None = None) -> list[Holder]:
    """The deployments holding resources for ``user_id`` (or ``group_name``; with both, the
    person's own in the group's pool), oldest first."""
    rows = db.session.execute(
        select(
            Deployment.id,
            Deployment.name,
            Deployment.template_name,
            Deployment.status,
            Deployment.charge,
            Deployment.group_name,
        )
        .where(holding_clause(), _owned_by(user_id, group_name))
        .order_by(Deployment.created_at, Deployment.id)
    )
    return [
        Holder(id, name or template_name or f"#{id}", status, charge or {}, group)
        for id, name, template_name, status, charge, group in rows
    ]


__all__ = [
    "ANY_GPU_MODEL",
    "Holder",
    "Usage",
    "holders_of",
    "pool_and_people",
    "usage_of",
    "usage_of_many",
    "usage_pair",
]
