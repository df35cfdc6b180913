"""A portal on the demo orchestrator with two published templates, and callers with tokens."""

from datetime import timedelta

import pytest
from argon2 import PasswordHasher

from app.auth import access_tokens, local
from app.auth.cli import create_local_user
from app.auth.models import User
from app.auth.operations import grant_role
from app.catalogue.operations import publish, save_revision
from app.extensions import db
from tests.deployments.conftest import SECRET_SIDECAR, SIDECAR, TEMPLATE

ALL_SCOPES = tuple(access_tokens.SCOPES)
PARAMETERS = {"num_cpus": 2, "jupyter_password": "s3cret-passw0rd"}


@pytest.fixture(autouse=True)
def cheap_password_hashing(monkeypatch):
    monkeypatch.setattr(
        local, "_hasher", PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    )


def publish_templates(app) -> None:
    with app.app_context():
        save_revision("test-notebook", TEMPLATE, SIDECAR, "test", create=True)
        publish("test-notebook", "test")
        save_revision("secret-notebook", TEMPLATE, SECRET_SIDECAR, "test", create=True)
        publish("secret-notebook", "test")


@pytest.fixture
def app(make_app):
    portal = make_app(
        ORCHESTRATOR_URL="demo",
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_POLLS=1,
        ORCHESTRATOR_DEMO_COMPLETE_AFTER_SECONDS=None,
        LAUNCHES_PER_MINUTE=0,
    )
    publish_templates(portal)
    return portal


class Caller:
    """One person with one token, calling the API through the test client."""

    def __init__(self, client, user_id: int, token: str, username: str):
        self.client, self.user_id, self.token, self.username = client, user_id, token, username

    def headers(self, extra=None) -> dict:
        return {"Authorization": f"Bearer {self.token}", **(extra or {})}

    def get(self, path, **kwargs):
        return self.client.get(path, headers=self.headers(kwargs.pop("headers", None)), **kwargs)

    def post(self, path, json=None, **kwargs):
        headers = self.headers(kwargs.pop("headers", None))
        return self.client.post(path, json=json, headers=headers, **kwargs)

    def put(self, path, json=None, **kwargs):
        headers = self.headers(kwargs.pop("headers", None))
        return self.client.put(path, json=json, headers=headers, **kwargs)

    def delete(self, path, **kwargs):
        headers = self.headers(kwargs.pop("headers", None))
        return self.client.delete(path, headers=headers, **kwargs)

    def launch(self, name="api-1", template="test-notebook", parameters=None, **kwargs):
        body = {
            "template": template,
            "name": name,
            "parameters": PARAMETERS if parameters is None else parameters,
        }
        return self.post("/api/v1/deployments", json=body, **kwargs)


class Callers:
    def __init__(self, app):
        self.app = app

    def user(self, username: str, groups=("physics",), admin: bool = False) -> int:
        with self.app.app_context():
            user = create_local_user(username, "correct horse battery")
            user.groups = list(groups)
            if admin:
                grant_role(user, "admin", granted_by="test")
            db.session.commit()
            return user.id

    def token_for(self, user_id: int, scopes=ALL_SCOPES, days: int = 30) -> str:
        with self.app.app_context():
            user = db.session.get(User, user_id)
            _record, token = access_tokens.create(user, "test", list(scopes), timedelta(days=days))
            return token

    def __call__(self, username="ada", scopes=ALL_SCOPES, admin=False, groups=("physics",)):
        user_id = self.user(username, groups=groups, admin=admin)
        token = self.token_for(user_id, scopes)
        return Caller(self.app.test_client(), user_id, token, username)


@pytest.fixture
def callers(app):
    """``callers(username, scopes=..., admin=False)`` -> a Caller with a fresh token."""
    return Callers(app)


@pytest.fixture
def live_portal(database_url, tmp_path):
    """The portal served by gunicorn with its sync worker (see ``live``), stopped afterwards."""
    from tests.api.live import LivePortal

    portal = LivePortal(database_url, tmp_path)
    portal.prepare()
    try:
        portal.start()
        yield portal
    finally:
        portal.stop()
