"""Fixtures shared by every test: the application from its factory, clients, and people."""

import re
import secrets
import shutil

import pytest

from app import create_app
from app.auth.cli import create_local_user
from app.auth.operations import grant_role
from app.extensions import db

pytest_plugins = [
    "tests.fixtures.postgres",
    "tests.fixtures.slapd",
    "tests.fixtures.oidc_provider",
]

TEST_CONFIG = {
    "TESTING": True,
    "SECRET_KEY": "test-" + "x" * 40,
    "LOCAL_LOGIN_ENABLED": True,
    "LDAP": None,
    "OIDC_PROVIDERS": [],
}

CSRF_RE = re.compile(
    r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"'
)


def csrf_from(html: str) -> str:
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1) or match.group(2)


@pytest.fixture
def make_app(tmp_path):
    """Build an app with test settings plus ``overrides``, on its own SQLite file."""

    apps = []

    def factory(**overrides):
        config = {
            **TEST_CONFIG,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/portal-{secrets.token_hex(4)}.sqlite",
            **overrides,
        }
        app = create_app(config, instance_path=str(tmp_path / "instance"))
        with app.app_context():
            db.create_all()
        apps.append(app)
        return app

    yield factory
    # Close pooled connections now, not when they are garbage collected (a ResourceWarning).
    for app in apps:
        with app.app_context():
            db.engine.dispose()


@pytest.fixture(scope="session")
def starter_catalogue_db(tmp_path_factory):
    """A database file holding the starter catalogue, imported once per test session."""
    from app.catalogue.operations import import_folder

    folder = tmp_path_factory.mktemp("catalogue-db")
    app = create_app(
        {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/seed.sqlite"},
        instance_path=str(folder / "instance"),
    )
    with app.app_context():
        db.create_all()
        results = import_folder(app.config["CATALOGUE_DIR"], author="seed")
        db.session.remove()
        db.engine.dispose()
    assert all("published" in outcome for _slug, outcome in results), results
    return folder / "seed.sqlite"


@pytest.fixture
def catalogue_app(make_app, starter_catalogue_db, tmp_path):
    """An app whose database already holds the published starter catalogue."""
    target = tmp_path / "with-catalogue.sqlite"
    shutil.copy(starter_catalogue_db, target)
    return make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{target}")


@pytest.fixture
def app(make_app):
    # No app context stays pushed: each test request must get its own, as in production
    # (a shared one would carry Flask-Login's cached user from one request to the next).
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


class People:
    """Creates local accounts and logs them in through the real login form."""

    def __init__(self, app, client):
        self.app, self.client = app, client

    def create(self, username="researcher", password="correct horse battery", roles=(), **kw):
        with self.app.app_context():
            user = create_local_user(username, password, **kw)
            for role in roles:
                grant_role(user, role, granted_by="test")
            return user.id

    def login(self, username, password="correct horse battery", client=None, next_url=None):
        client = client or self.client
        page = client.get("/login")
        data = {
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "username": username,
            "password": password,
            "method": "local",
        }
        if next_url:
            data["next"] = next_url
        return client.post("/login", data=data)

    def login_as(self, role="user", username=None):
        """Create a user with ``role`` and log them in; returns the user id."""
        username = username or f"{role}-{secrets.token_hex(3)}"
        user_id = self.create(username, roles=() if role == "user" else (role,))
        response = self.login(username)
        assert response.status_code == 302, response.get_data(as_text=True)
        return user_id


@pytest.fixture
def people(app, client):
    return People(app, client)


@pytest.fixture
def people_for():
    """People for an app the test built itself."""
    return People


@pytest.fixture
def login_as(people):
    return people.login_as


def post_form(client, page_url, url, data):
    """POST ``data`` to ``url`` with the CSRF token taken from ``page_url``."""
    page = client.get(page_url)
    return client.post(url, data={"csrf_token": csrf_from(page.get_data(as_text=True)), **data})
