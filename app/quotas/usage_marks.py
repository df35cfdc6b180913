"""Writes usage down as deployments hold resources: a mark per deployment that holds, a piece
when a stretch of use ends, and the worker's folding of pieces into daily and monthly totals.

Exactly once across hosts: a deployment's mark changes only under that deployment's row lock
(the ORM listener runs inside the transaction that changed the deployment) or by a
compare-and-set on ``since`` (the worker, taking only marks no one holds); a piece is folded in
the transaction that deletes it, by one worker (the others skip rows already taken). Nothing
here waits on shared rows while holding a deployment's: listeners only insert and delete
rows of their own deployment, and folders lock totals in one order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import attributes

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db, listen_once
from app.quotas.holding import holds
from app.quotas.usage_models import (
    CORES_ROW,
    DAY,
    MONTH,
    WHOLE_GROUP,
    UsageMark,
    UsagePiece,
    UsageTotal,
)

GB = 10**9
HOUR = timedelta(hours=1)
# A mark older than this is written down by the worker, so that what is computed on read for
# running deployments stays small.
MOVE_AFTER = timedelta(hours=1)
# The changes of a deployment that can start, end or change what it is charged per hour.
_WATCHED = ("status", "deleted", "charge", "keeps_failed_attempt", "runs_once", "user_id")
_WATCHED += ("group_name",)


def rate_of(deployment: Deployment) -> dict | None:
    """What ``deployment`` uses per hour while it holds, as a mark stores it; None when it
    holds nothing (or does not hold)."""
    return charge_rate(deployment) if holds(deployment) else None


def charge_rate(deployment: Deployment) -> dict | None:
    """What ``deployment``'s charge uses per hour (held or not); None when it is nothing."""
    charge = deployment.charge if isinstance(deployment.charge, dict) else {}

    def number(value) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok and value > 0 else 0.0

    models = charge.get("gpu_models") if isinstance(charge.get("gpu_models"), dict) else {}
    rate = {
        "user_id": deployment.user_id,
        "group_name": deployment.group_name or "",
        "cores": number(charge.get("cores")),
        "memory_gb": number(charge.get("memory")) / GB,
        "gpu_models": {str(m)[:64]: number(c) for m, c in sorted(models.items()) if number(c)},
    }
    if not (rate["cores"] or rate["memory_gb"] or rate["gpu_models"]):
        return None
    return rate


def _same(mark, rate: dict) -> bool:
    return (mark.user_id, mark.group_name, mark.cores, mark.memory_gb, mark.gpu_models or {}) == (
        rate["user_id"],
        rate["group_name"],
        rate["cores"],
        rate["memory_gb"],
        rate["gpu_models"],
    )


def _piece(mark, end: datetime) -> dict:
    return {
        "user_id": mark.user_id,
        "group_name": mark.group_name,
        "start": mark.since,
        "end": end,
        "cores": mark.cores,
        "memory_gb": mark.memory_gb,
        "gpu_models": mark.gpu_models or {},
    }


def settle(connection, deployment: Deployment, started: datetime | None = None) -> None:
    """Bring ``deployment``'s mark in step with what it holds now: write down the stretch
    since the mark when it stops holding or its charge or owner changes, and mark it anew
    while it holds (from ``started``, when earlier than now: a record inserted already
    holding held from when it was submitted). Runs inside the transaction that changed the
    deployment."""
    now = utcnow()
    rate = rate_of(deployment)
    table = UsageMark.__table__
    while True:
        mark = connection.execute(
            select(table).where(table.c.deployment_id == deployment.id)
        ).first()
        if mark is None:
            if rate:
                since = min(started or now, now)
                connection.execute(
                    insert(table), [{"deployment_id": deployment.id, "since": since, **rate}]
                )
            return
        if rate and _same(mark, rate):
            return
        taken = connection.execute(
            delete(table).where(table.c.deployment_id == deployment.id, table.c.since == mark.since)
        ).rowcount
        if not taken:
            continue  # the worker wrote it down meanwhile: read the mark again
        if now > mark.since:
            connection.execute(insert(UsagePiece.__table__), [_piece(mark, now)])
        if rate:
            connection.execute(
                insert(table),
                [{"deployment_id": deployment.id, "since": max(now, mark.since), **rate}],
            )
        return


def listen() -> None:
    """Keep every deployment's mark in step with its record (registered by ``create_app``,
    after the charge listeners)."""
    listen_once(Deployment, "after_insert", _inserted)
    listen_once(Deployment, "after_update", _updated)


def _inserted(_mapper, connection, deployment: Deployment) -> None:
    settle(connection, deployment, deployment.submitted_at or deployment.created_at)


def _updated(_mapper, connection, deployment: Deployment) -> None:
    if any(attributes.get_history(deployment, name).has_changes() for name in _WATCHED):
        settle(connection, deployment)


def spread(start: datetime, end: datetime) -> Iterator[tuple[date, float]]:
    """The hours between ``start`` and ``end`` in each calendar day (UTC) they cross."""
    while start < end:
        next_day = datetime.combine(start.date() + timedelta(days=1), datetime.min.time())
        stop = min(end, next_day)
        yield start.date(), (stop - start) / HOUR
        start = stop


def month_of(day: date) -> date:
    return day.replace(day=1)


def _increments(pieces) -> dict[tuple, list[float]]:
    """{(span, start, user, group, model): [core-hours, memory GB-hours, GPU-hours]}: the
    person's rows in the group, and the group's own (``WHOLE_GROUP``) rows beside them."""
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for piece in pieces:
        people = (piece.user_id, WHOLE_GROUP) if piece.group_name else (piece.user_id,)
        for day, hours in spread(piece.start, piece.end):
            for span, start in ((DAY, day), (MONTH, month_of(day))):
                for person in people:
                    owner = (span, start, person, piece.group_name)
                    if piece.cores or piece.memory_gb:
                        row = sums[(*owner, CORES_ROW)]
                        row[0] += piece.cores * hours
                        row[1] += piece.memory_gb * hours
                    for model, count in (piece.gpu_models or {}).items():
                        sums[(*owner, model)][2] += count * hours
    return sums


def add_to_totals(span: str, start: date, user_id: int, group_name: str, **hours) -> None:
    """Add hours (``core_hours``, ``memory_gb_hours``, ``gpu_hours`` of ``gpu_model``) to one
    person's total, and to their group's own total, as folding does: for an operator's
    correction or a portal's history written in bulk. Not committed."""
    model = hours.get("gpu_model", CORES_ROW)
    value = [hours.get(key, 0.0) for key in ("core_hours", "memory_gb_hours", "gpu_hours")]
    people = (user_id, WHOLE_GROUP) if group_name else (user_id,)
    _upsert({(span, start, person, group_name, model): list(value) for person in people})


def _upsert(increments: dict[tuple, list[float]]) -> None:
    if not increments:
        return
    dialect = db.session.get_bind().dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = make(UsageTotal.__table__)
    added = statement.excluded
    table = UsageTotal.__table__.c
    statement = statement.on_conflict_do_update(
        index_elements=["span", "start", "user_id", "group_name", "gpu_model"],
        set_={
            "core_hours": table.core_hours + added.core_hours,
            "memory_gb_hours": table.memory_gb_hours + added.memory_gb_hours,
            "gpu_hours": table.gpu_hours + added.gpu_hours,
        },
    )
    rows = [
        {
            "span": key[0],
            "start": key[1],
            "user_id": key[2],
            "group_name": key[3],
            "gpu_model": key[4],
            "core_hours": value[0],
            "memory_gb_hours": value[1],
            "gpu_hours": value[2],
        }
        # One order for every folder, so two folding at once never wait on each other in turn.
        for key, value in sorted(
            increments.items(), key=lambda item: (item[0][0], str(item[0][1]), *item[0][2:])
        )
    ]
    db.session.execute(statement, rows)


def fold_pieces(batch: int = 2000) -> int:
    """Fold up to ``batch`` written-down pieces into the totals and delete them, in one
    transaction (committed here). Returns how many were folded.

    The pieces folded are those this transaction deleted (``DELETE … RETURNING``): a folder
    on another host that chose the same rows gets none of them back, on SQLite as on
    PostgreSQL (where rows another folder holds are skipped, not waited for)."""
    table = UsagePiece.__table__
    chosen = select(table.c.id).order_by(table.c.id).limit(batch).with_for_update(skip_locked=True)
    ids = list(db.session.scalars(chosen))
    if not ids:
        db.session.rollback()
        return 0
    pieces = db.session.execute(delete(table).where(table.c.id.in_(ids)).returning(table)).all()
    _upsert(_increments(pieces))
    db.session.commit()
    return len(pieces)


def write_down_marks(now: datetime | None = None, batch: int = 2000) -> int:
    """Write down the use of marks older than MOVE_AFTER up to ``now`` (committed here), so
    that reads compute little on the fly. Returns how many marks moved."""
    now = now or utcnow()
    table = UsageMark.__table__
    marks = db.session.execute(
        select(table)
        .where(table.c.since < now - MOVE_AFTER)
        .order_by(table.c.deployment_id)
        .limit(batch)
        .with_for_update(skip_locked=True)
    ).all()
    moved = 0
    for mark in marks:
        changed = db.session.execute(
            update(table)
            .where(table.c.deployment_id == mark.deployment_id, table.c.since == mark.since)
            .values(since=now)
        ).rowcount
        if changed:
            db.session.execute(insert(UsagePiece.__table__), [_piece(mark, now)])
            moved += 1
    db.session.commit()
    return moved


def account_usage_once(now: datetime | None = None) -> str:
    """The worker's usage pass: write down long-open marks, then fold every written-down
    piece into the daily and monthly totals. Safe on any number of hosts at once."""
    moved = write_down_marks(now)
    folded = 0
    while True:
        done = fold_pieces()
        folded += done
        if not done:
            break
    return f"{moved} marks written down, {folded} pieces folded"
