"""A worker process for the idempotency tests: its own app, posting one launch at a barrier."""

from app import create_app
from app.extensions import db


def run(config: dict, instance: str, token: str, key: str, body: dict, barrier, results) -> None:
    """POST ``body`` with Idempotency-Key ``key`` once ``barrier`` lets every process go; put
    (status, deployment id or problem type) on ``results``."""
    app = create_app(dict(config), instance_path=instance)
    client = app.test_client()
    barrier.wait(timeout=60)
    answer = client.post(
        "/api/v1/deployments",
        json=body,
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
    )
    data = answer.get_json() or {}
    results.put((answer.status_code, data.get("id") or data.get("type")))
    with app.app_context():
        db.engine.dispose()
