"""On PostgreSQL, reads run outside transactions; the first write opens one, which holds
everything after it until the session commits or rolls back."""

from contextlib import closing

import psycopg
import pytest
from psycopg import _connection_base
from sqlalchemy import func, select, text
from sqlalchemy.engine.url import make_url

from app.auth.cli import create_local_user
from app.auth.models import User
from app.extensions import db
from app.transactions import is_plain_read

pytestmark = pytest.mark.parametrize("database", ["postgresql"], indirect=True)


@pytest.fixture
def commands(monkeypatch) -> list[str]:
    """The commands psycopg sends of its own (BEGIN, COMMIT, ROLLBACK), in order."""
    sent: list[str] = []
    original = _connection_base.BaseConnection._exec_command

    def recorded(self, command, *args, **kwargs):
        sent.append(command.decode() if isinstance(command, bytes) else str(command))
        return original(self, command, *args, **kwargs)

    monkeypatch.setattr(_connection_base.BaseConnection, "_exec_command", recorded)
    return sent


def _libpq_url(app) -> str:
    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def test_a_page_that_only_reads_sends_no_begin_and_no_rollback(app, login_as, client, commands):
    login_as("user")
    commands.clear()
    assert client.get("/catalogue/").status_code == 200
    assert client.get("/healthz").status_code == 200
    assert commands == []


def test_a_write_and_what_follows_it_are_one_transaction(app, commands):
    with app.app_context():
        create_local_user("ada", "correct horse battery")
        commands.clear()
        db.session.scalar(select(func.count()).select_from(User))
        db.session.add(User(provider="local", subject="bob", username="bob"))
        db.session.flush()
        assert db.session.scalar(select(func.count()).select_from(User)) == 2
        db.session.rollback()
        assert db.session.scalar(select(func.count()).select_from(User)) == 1
        assert commands == ["BEGIN", "ROLLBACK"]


def test_a_locking_read_holds_its_lock_until_the_commit(app):
    with app.app_context():
        user_id = create_local_user("ada", "correct horse battery").id
        db.session.scalar(select(User).where(User.id == user_id).with_for_update())
        with closing(psycopg.connect(_libpq_url(app), autocommit=True)) as other:
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT id FROM users WHERE id = %s FOR UPDATE NOWAIT", (user_id,))
            db.session.commit()
            other.execute("SELECT id FROM users WHERE id = %s FOR UPDATE NOWAIT", (user_id,))


def test_a_connection_goes_back_to_the_pool_reading_without_a_transaction(app, commands):
    with app.app_context():
        create_local_user("ada", "correct horse battery")
        commands.clear()
        db.session.scalar(select(User.id))
        db.session.commit()
        assert db.session.connection().connection.dbapi_connection.autocommit
        assert commands == []


def test_only_selects_that_take_no_lock_are_plain_reads(app):
    with app.app_context():
        connection = db.session.connection()

        def kind(statement) -> bool:
            compiled = statement.compile(dialect=connection.dialect)

            class Context:
                pass

            context = Context()
            context.compiled = compiled
            return is_plain_read(str(compiled), context)

        assert kind(select(User.id))
        assert not kind(select(User.id).with_for_update())
        assert not kind(select(User.id).with_for_update(read=True))
        assert not kind(text("SELECT 1"))
        assert not kind(db.update(User).values(active=False))
        db.session.rollback()


def test_autocommit_asked_for_by_the_caller_stays(app):
    with app.app_context():
        engine = db.engine
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM users"))


def test_an_engine_set_to_another_isolation_level_keeps_its_transactions(make_app, commands):
    app = make_app(SQLALCHEMY_ENGINE_OPTIONS={"isolation_level": "REPEATABLE READ"})
    commands.clear()
    with app.app_context():
        db.session.scalar(select(func.count()).select_from(User))
        db.session.rollback()
    assert commands == ["BEGIN ISOLATION LEVEL REPEATABLE READ", "ROLLBACK"]
