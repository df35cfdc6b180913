"""Helpers for quota tests: people with groups, deployments holding charges, limits."""

import secrets

import pytest

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.editing import parse_limit, set_limits

GB = 10**9


def charge(cores=0, memory=0, disk=0, gpus=0, gpu_models=None, uncounted=()):
    """A charge as ``charge_for`` makes it (memory and disk given in GB)."""
    return {
        "cores": cores,
        "memory": memory * GB,
        "disk": disk * GB,
        "gpus": gpus,
        "gpu_models": gpu_models
        if gpu_models is not None
        else ({"any model": gpus} if gpus else {}),
        "deployments": 1,
        "nodes": 1,
        "summary": "",
        "uncounted": list(uncounted),
    }


def new_deployment(user_id: int, name: str = "", group_name=None, **fields) -> Deployment:
    """A deployment about to be submitted (not added to the session)."""
    return Deployment(
        user_id=user_id,
        name=name or f"launch-{secrets.token_hex(3)}",
        template_slug="vm",
        template_name="Virtual machine",
        parameters={},
        request_options={},
        outputs={},
        status="SUBMITTING",
        group_name=group_name,
        **fields,
    )


class Quotas:
    """Works inside the app's context: ``with quotas.app.app_context(): ...`` is done for you."""

    def __init__(self, app):
        self.app = app

    def user(self, username=None, groups=(), provider="local") -> int:
        with self.app.app_context():
            user = User(
                provider=provider,
                subject=username or secrets.token_hex(4),
                username=username or f"user-{secrets.token_hex(3)}",
                groups=list(groups),
            )
            db.session.add(user)
            db.session.commit()
            return user.id

    def hold(self, user_id, charged: dict, *, status="ready", **fields) -> int:
        """A deployment of ``user_id`` already recorded with ``charged``; returns its id."""
        with self.app.app_context():
            deployment = new_deployment(user_id, **fields)
            deployment.status, deployment.charge = status, charged
            db.session.add(deployment)
            db.session.commit()
            return deployment.id

    def limit(self, scope, subject="", reason="test", **limits):
        """Set limits given as they would be typed (``gpus="4"``, ``memory="8 GB"``,
        ``gpu_models={"A100": "1"}``)."""
        changes = {}
        for key, text in limits.items():
            if key == "gpu_models":
                changes[key] = {m: parse_limit(m, t) for m, t in text.items()}
            else:
                changes[key] = parse_limit(key, text)
        with self.app.app_context():
            set_limits(None, scope, str(subject), changes, reason)

    def update_user(self, user_id, **fields):
        with self.app.app_context():
            user = db.session.get(User, user_id)
            for key, value in fields.items():
                setattr(user, key, value)
            db.session.commit()

    def update(self, deployment_id, **fields):
        with self.app.app_context():
            deployment = db.session.get(Deployment, deployment_id)
            for key, value in fields.items():
                setattr(deployment, key, value)
            db.session.commit()


@pytest.fixture
def quota_app(make_app):
    return make_app()


@pytest.fixture
def quotas(quota_app):
    return Quotas(quota_app)
