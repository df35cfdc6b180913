"""Fixtures shared by every test: the application from its factory, clients, and people."""

import re
import secrets
import shutil
from pathlib import Path

import pytest

from app import create_app
from app.auth.cli import create_local_user
from app.auth.operations import grant_role
from app.extensions import db

pytest_plugins = [
    "tests.fixtures.network",
    "tests.fixtures.postgres",
    "tests.fixtures.databases",
    "tests.fixtures.slapd",
    "tests.fixtures.absent_directories",
    "tests.fixtures.oidc_provider",
    "tests.fixtures.orchestrator_emulator",
    "tests.fixtures.tosca",
    "tests.fixtures.smtp",
    "tests.fixtures.im_server",
]

TEST_CONFIG = {
    "TESTING": True,
    "SECRET_KEY": "test-" + "x" * 40,
    "LOCAL_LOGIN_ENABLED": True,
    "LDAP": None,
    "OIDC_PROVIDERS": [],
    "ORCHESTRATOR_URL": "demo",
}

CSRF_RE = re.compile(
    r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"'
)


def csrf_from(html: str) -> str:
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1) or match.group(2)


@pytest.fixture
def make_app(tmp_path, database, new_database_url):
    """Build an app with test settings plus ``overrides``, on an empty database of its own.

    The database is SQLite, or PostgreSQL in the ``[postgresql]`` run of database-facing tests
    (see tests/fixtures/databases.py).
    """

    apps = []

    def factory(**overrides):
        pinned = overrides.get("SQLALCHEMY_DATABASE_URI", "")
        if database == "postgresql" and pinned.startswith("sqlite"):
            pytest.skip("pins a SQLite file of its own; the SQLite run covers it")
        config = {
            **TEST_CONFIG,
            "SQLALCHEMY_DATABASE_URI": pinned or new_database_url(),
            **overrides,
        }
        app = create_app(config, instance_path=str(tmp_path / "instance"))
        with app.app_context():
            db.create_all()
        apps.append(app)
        return app

    yield factory
    # Close pooled connections now, not when they are garbage collected (a ResourceWarning),
    # and before a PostgreSQL schema is dropped.
    for app in apps:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def _import_starter_catalogue(url: str, instance: Path) -> None:
    from app.catalogue.operations import import_folder

    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": url}, instance_path=str(instance))
    with app.app_context():
        db.create_all()
        results = import_folder(app.config["CATALOGUE_DIR"], author="seed")
        db.session.remove()
        db.engine.dispose()
    assert all("published" in outcome for _slug, outcome in results), results


@pytest.fixture(scope="session")
def starter_catalogue_db(tmp_path_factory):
    """A database file holding the starter catalogue, imported once per test session."""
    folder = tmp_path_factory.mktemp("catalogue-db")
    _import_starter_catalogue(f"sqlite:///{folder}/seed.sqlite", folder / "instance")
    return folder / "seed.sqlite"


@pytest.fixture(scope="session")
def starter_catalogue_schema(postgres_test_database, tmp_path_factory):
    """A PostgreSQL schema holding the starter catalogue, imported once per test session."""
    schema = postgres_test_database.create_schema("seed")
    folder = tmp_path_factory.mktemp("catalogue-schema")
    _import_starter_catalogue(postgres_test_database.sqlalchemy_url(schema), folder / "instance")
    yield schema
    postgres_test_database.drop_schema(schema)


@pytest.fixture
def catalogue_database_url(database, tmp_path, request):
    """A database of this test's backend already holding the published starter catalogue."""
    if database == "sqlite":
        target = tmp_path / f"with-catalogue-{secrets.token_hex(4)}.sqlite"
        shutil.copy(request.getfixturevalue("starter_catalogue_db"), target)
        return f"sqlite:///{target}"
    seed = request.getfixturevalue("starter_catalogue_schema")
    postgres = request.getfixturevalue("postgres_test_database")
    schema = postgres.create_schema(
        script=request.getfixturevalue("empty_tables").postgres_script()
    )
    request.addfinalizer(lambda: postgres.drop_schema(schema))
    postgres.copy_rows(db.metadata, seed, schema)
    return postgres.sqlalchemy_url(schema)


@pytest.fixture
def catalogue_app(make_app, catalogue_database_url):
    """An app whose database already holds the published starter catalogue."""
    return make_app(SQLALCHEMY_DATABASE_URI=catalogue_database_url)


@pytest.fixture(autouse=True)
def cheap_password_hashing(request, monkeypatch):
    """Hash passwords cheaply: most tests log people in but are not about passwords.

    Argon2id with production parameters costs about half a second a hash on a busy test
    machine; tests marked ``real_password_hashing`` keep them.
    """
    if request.node.get_closest_marker("real_password_hashing"):
        return
    from argon2 import PasswordHasher

    from app.auth import local

    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    monkeypatch.setattr(local, "_hasher", cheap)
    monkeypatch.setattr(local, "_DUMMY_HASH", cheap.hash("not a real password"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "real_password_hashing: hash passwords with the production Argon2 parameters"
    )
    compile_stale_catalogues()


TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"


def compile_stale_catalogues(root: Path = TRANSLATIONS) -> None:
    """Compile each messages.po whose .mo is missing or older before the test workers start, so
    that they do not all compile it at once (each app would, at its start)."""
    from app.catalogues import compile_stale

    compile_stale(root)


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


@pytest.fixture(autouse=True)
def clock_as_before():
    """Each test ends on the clock it started with: an app built with CLOCK_OFFSET_FILE installs
    that clock for the whole process, and a later test would read time moved hours on."""
    from app.clock import installed_clock, set_clock

    before = installed_clock()
    yield
    set_clock(before)
