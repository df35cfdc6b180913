"""A group with managers, members and deployments, and people to look at its page."""

from datetime import datetime, timedelta

import pytest

from app.auth import managers
from app.auth.local import find_local_user
from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment
from app.extensions import db
from app.lines.models import LineEntry
from app.quotas.usage_models import UsageBudget
from tests.quotas.conftest import charge, new_deployment


class Group:
    """Builds the group's world inside the app's context."""

    def __init__(self, app, people):
        self.app, self.people = app, people

    def person(self, username, groups=(), roles=(), **fields) -> int:
        user_id = self.people.create(username, roles=roles)
        with self.app.app_context():
            user = db.session.get(User, user_id)
            user.groups = list(groups)
            for key, value in fields.items():
                setattr(user, key, value)
            db.session.commit()
        return user_id

    def manager(self, group, username) -> None:
        with self.app.app_context():
            managers.name_manager(group, find_local_user(username), "test")

    def running(self, user_id, group, name="", created_at=None, **charged) -> int:
        with self.app.app_context():
            deployment = new_deployment(user_id, name=name, group_name=group)
            deployment.status = "ready"
            deployment.charge = charge(**(charged or {"cores": 2}))
            if created_at is not None:
                deployment.created_at = created_at
            db.session.add(deployment)
            db.session.commit()
            return deployment.id

    def waiting(self, user_id, group, name, line, enqueued_at) -> int:
        with self.app.app_context():
            deployment = new_deployment(user_id, name=name, group_name=group)
            deployment.status, deployment.charge = "WAITING", charge(gpus=1)
            db.session.add(deployment)
            db.session.flush()
            db.session.add(
                LineEntry(
                    deployment_id=deployment.id,
                    user_id=user_id,
                    line=line,
                    enqueued_at=enqueued_at,
                    fair_at=enqueued_at,
                    expires_at=enqueued_at + timedelta(days=7),
                )
            )
            db.session.commit()
            return deployment.id

    def budget(self, group, resource, hours) -> None:
        with self.app.app_context():
            db.session.add(
                UsageBudget(
                    scope="group", subject=group, resource=resource, hours=hours, period_days=0
                )
            )
            db.session.commit()

    def update(self, deployment_id, **fields) -> None:
        with self.app.app_context():
            deployment = db.session.get(Deployment, deployment_id)
            for key, value in fields.items():
                setattr(deployment, key, value)
            db.session.commit()


@pytest.fixture
def group(app, people):
    return Group(app, people)


def an_hour_ago() -> datetime:
    return utcnow() - timedelta(hours=1)
