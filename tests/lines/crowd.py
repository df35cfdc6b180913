"""Many waiting requests written in bulk, for the tests of the Lines page's pages."""

from datetime import timedelta

from sqlalchemy import insert

from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db
from app.lines.models import LineEntry

GROUP_LINE = "group:physics:gpus:A100"
SITE_LINE = "site:any:gpus:"


def fill(app, owner_id: int, key: str, count: int, prefix: str) -> None:
    """``count`` requests of ``owner_id`` waiting in line ``key``, named ``prefix-00001`` on
    in the order they joined; written in two statements, however many."""
    start = utcnow() - timedelta(days=1)
    with app.app_context():
        ids = db.session.scalars(
            insert(Deployment).returning(Deployment.id, sort_by_parameter_order=True),
            [
                {
                    "user_id": owner_id,
                    "name": f"{prefix}-{n:05d}",
                    "template_slug": "gpu-machine",
                    "template_name": "GPU machine",
                    "group_name": "physics",
                    "status": "WAITING",
                    "charge": {"summary": "1 A100 GPU"},
                }
                for n in range(1, count + 1)
            ],
        ).all()
        db.session.execute(
            insert(LineEntry),
            [
                {
                    "deployment_id": deployment_id,
                    "user_id": owner_id,
                    "line": key,
                    "enqueued_at": start + timedelta(seconds=n),
                    "fair_at": start + timedelta(seconds=n),
                    "expires_at": start + timedelta(days=7),
                }
                for n, deployment_id in enumerate(ids, start=1)
            ],
        )
        db.session.commit()
