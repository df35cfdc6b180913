"""Writing usage down from the deployments' records, once: after upgrading to running totals,
or to start them again. What ran before is written as pieces by the rule of the earlier monthly
sums (``usage_history``: from submission to the timeline's end), what holds now gets a mark
from its submission; the worker's pass then folds the pieces."""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import load_only

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.holding import holds
from app.quotas.usage_history import _ends, _ever_held
from app.quotas.usage_marks import charge_rate, rate_of
from app.quotas.usage_models import UsageMark, UsagePiece, UsageTotal

BATCH = 2000


def usage_written() -> bool:
    """Whether anything is written down already (totals, pieces or marks)."""
    return any(
        db.session.scalar(select(func.count()).select_from(table))
        for table in (UsageTotal, UsageMark, UsagePiece)
    )


def rebuild_usage(*, replace: bool = False) -> tuple[int, int]:
    """Write down every deployment's use from its record; commits. With ``replace``, what was
    written before is dropped first. Returns (pieces written, marks made).

    Raises RuntimeError when usage is written already and ``replace`` is not given."""
    if usage_written():
        if not replace:
            raise RuntimeError("Usage is written down already; replace it to start again.")
        for table in (UsageTotal, UsageMark, UsagePiece):
            db.session.execute(delete(table))
    now = utcnow()
    pieces = marks = 0
    last_id = 0
    while True:
        deployments = list(
            db.session.scalars(
                select(Deployment)
                .options(
                    load_only(
                        Deployment.id,
                        Deployment.user_id,
                        Deployment.group_name,
                        Deployment.charge,
                        Deployment.status,
                        Deployment.deleted,
                        Deployment.keeps_failed_attempt,
                        Deployment.runs_once,
                        Deployment.created_at,
                        Deployment.submitted_at,
                        Deployment.deleted_at,
                        Deployment.updated_at,
                    )
                )
                .where(Deployment.id > last_id, _ever_held(), Deployment.created_at < now)
                .order_by(Deployment.id)
                .limit(BATCH)
            )
        )
        if not deployments:
            break
        last_id = deployments[-1].id
        ends = _ends(deployments)
        for deployment in deployments:
            start = deployment.submitted_at or deployment.created_at
            if holds(deployment):
                rate = rate_of(deployment)
                if rate:
                    db.session.add(UsageMark(deployment_id=deployment.id, since=start, **rate))
                    marks += 1
                continue
            rate = charge_rate(deployment)
            end = deployment.deleted_at or ends.get(deployment.id) or deployment.updated_at
            end = min(end, now)
            if rate and end > start:
                db.session.add(UsagePiece(start=start, end=end, **rate))
                pieces += 1
        db.session.commit()
    return pieces, marks
