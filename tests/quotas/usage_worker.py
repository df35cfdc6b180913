"""A worker process for the usage tests: at one fixed instant, either ends deployments (as
the sync worker or a person would) or runs the usage pass, racing the others."""

from datetime import datetime

from app import create_app
from app.clock import set_clock
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.usage_marks import account_usage_once


def run(config: dict, instance: str, role: str, ids: list, at: str, barrier, results) -> None:
    """``role`` "end": delete each of ``ids``, one transaction each; "account": run the usage
    pass again and again. Puts "ok" (or the error's text) on ``results``."""
    set_clock(lambda: datetime.fromisoformat(at))
    app = create_app(dict(config), instance_path=instance)
    outcome = "ok"
    with app.app_context():
        barrier.wait(timeout=60)
        try:
            if role == "end":
                for deployment_id in ids:
                    deployment = db.session.get(Deployment, deployment_id)
                    deployment.status = "deleted"
                    db.session.commit()
            else:
                for _ in range(len(ids)):
                    account_usage_once()
        except Exception as error:  # reported to the test, which fails on it
            outcome = f"error: {error!r}"
        finally:
            db.session.remove()
            db.engine.dispose()
    results.put(outcome)
