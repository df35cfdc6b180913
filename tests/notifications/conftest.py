"""A portal whose notification mails go to the test's SMTP server, and small helpers."""

from datetime import timedelta

import pytest

from app.auth.cli import create_local_user
from app.auth.models import User
from app.clock import utcnow
from app.deployments.models import Deployment
from app.deployments.timeline import record_event
from app.extensions import db
from app.notifications.models import Notification
from app.notifications.sending import send_once


class Portal:
    """The app under test and the verbs the notification tests need."""

    def __init__(self, app):
        self.app = app

    def user(self, username="ada", email="ada@example.org", **fields) -> int:
        with self.app.app_context():
            user = create_local_user(username, "correct horse battery", email=email)
            for name, value in fields.items():
                setattr(user, name, value)
            db.session.commit()
            return user.id

    def deployment(self, user_id: int, **fields) -> int:
        with self.app.app_context():
            values = {
                "uuid": None,
                "user_id": user_id,
                "name": "Notebook for the course",
                "template_slug": "jupyter",
                "template_name": "Jupyter notebook",
                "parameters": {},
                "outputs": {},
                "charge": {},
                "request_options": {},
                "status": "creating",
                "created_at": utcnow() - timedelta(minutes=5),
                **fields,
            }
            deployment = Deployment(**values)
            db.session.add(deployment)
            db.session.commit()
            return deployment.id

    def record(self, deployment_id: int, to_status=None, *, source="sync", actor_id=None, **kw):
        """Record a timeline entry the way the features that own them do, and commit."""
        with self.app.app_context():
            deployment = db.session.get(Deployment, deployment_id)
            actor = db.session.get(User, actor_id) if actor_id else None
            record_event(deployment, to_status, source=source, actor=actor, **kw)
            db.session.commit()

    def notifications(self, user_id: int | None = None) -> list[Notification]:
        """The stored notifications (detached), oldest first."""
        with self.app.app_context():
            query = db.select(Notification).order_by(Notification.id)
            if user_id is not None:
                query = query.where(Notification.user_id == user_id)
            rows = list(db.session.scalars(query))
            for row in rows:
                db.session.expunge(row)
            return rows

    def send(self):
        with self.app.app_context():
            return send_once()


@pytest.fixture
def portal(make_app, smtp_server):
    """A portal mailing through the test's SMTP server (timeouts short: tests wait for them)."""
    return Portal(make_app(**smtp_server.settings(), MAIL_TIMEOUT=2))


@pytest.fixture
def portal_without_mail(make_app):
    """A portal with no mail server: notifications are shown in the portal only."""
    return Portal(make_app())
