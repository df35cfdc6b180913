"""The migrations build the schema the models describe, on SQLite and on PostgreSQL."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from app.auth.cli import create_local_user
from app.auth.identity import Identity
from app.auth.models import User
from app.auth.operations import grant_role, record_identity
from app.extensions import db


def _migrated_app(make_app, url):
    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade()
    return app


def _assert_schema_matches_models(app):
    with app.app_context(), db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, db.metadata) == []


def _exercise_user_model(app):
    with app.app_context():
        user = create_local_user("ada", "correct horse battery", "Ada Lovelace")
        grant_role(user, "operator", granted_by="test")
        again = record_identity(Identity("oidc", "sub-1", "ada@iam", "Ada", "a@x", ("g1", "g2")))
        assert db.session.get(User, user.id).roles == {"user", "operator"}
        assert again.groups == ["g1", "g2"]
        # One record per identity: the same subject again updates, never duplicates.
        record_identity(Identity("oidc", "sub-1", "ada@iam", "Ada L.", "a@x", ("g3",)))
        assert db.session.query(User).filter_by(provider="oidc").count() == 1


def test_migrations_build_the_models_schema_on_sqlite(make_app, tmp_path):
    app = _migrated_app(make_app, f"sqlite:///{tmp_path}/migrated.sqlite")
    _assert_schema_matches_models(app)
    _exercise_user_model(app)


@pytest.mark.postgres
def test_migrations_build_the_models_schema_on_postgresql(make_app, empty_postgres_url):
    app = _migrated_app(make_app, empty_postgres_url)
    _assert_schema_matches_models(app)
    _exercise_user_model(app)


@pytest.mark.postgres
def test_migrations_downgrade_to_nothing_on_postgresql(make_app, empty_postgres_url):
    app = _migrated_app(make_app, empty_postgres_url)
    with app.app_context():
        downgrade(revision="base")
        assert inspect(db.engine).get_table_names() == ["alembic_version"]


def _user_as_first_stored(name: str) -> int:
    """A user row written with the first revision's columns: the model's later columns do not
    exist yet in a database upgraded only part of the way."""
    from sqlalchemy import text

    return db.session.execute(
        text(
            "INSERT INTO users (provider, subject, username, display_name, email, groups,"
            " group_roles, active, created_at, session_version) VALUES ('local', :name, :name,"
            " :name, '', '[]', '[]', true, CURRENT_TIMESTAMP, 1) RETURNING id"
        ),
        {"name": name},
    ).scalar_one()


def _kept_flag_after_upgrade(make_app, url):
    """Deployments stored before the ``keeps_failed_attempt`` column get it from their
    ``request_options``, so a failed deployment kept for inspection still holds quota."""
    from sqlalchemy import text

    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision="4e8a0c6d2b93")
        user_id = _user_as_first_stored("ada")
        for name, options in (
            ("kept", '{"keepLastAttempt": true}'),
            ("plain", "{}"),
            ("off", '{"keepLastAttempt": false}'),
        ):
            db.session.execute(
                text(
                    "INSERT INTO deployments (user_id, name, template_slug, template_name,"
                    " parameters, request_options, charge, status, outputs, adopted,"
                    " check_failures, deleted, created_at, updated_at) VALUES (:user, :name,"
                    " 'vm', 'VM', '{}', :options, '{}', 'CREATE_FAILED', '{}', false, 0,"
                    " false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"user": user_id, "name": name, "options": options},
            )
        db.session.commit()
        upgrade()
        rows = db.session.execute(text("SELECT name, keeps_failed_attempt FROM deployments"))
        return {name: bool(kept) for name, kept in rows}


def test_the_kept_attempt_flag_is_filled_in_from_the_launch_options_on_sqlite(make_app, tmp_path):
    url = f"sqlite:///{tmp_path}/flag.sqlite"
    assert _kept_flag_after_upgrade(make_app, url) == {"kept": True, "plain": False, "off": False}


@pytest.mark.postgres
def test_the_kept_attempt_flag_is_filled_in_from_the_launch_options_on_postgresql(
    make_app, empty_postgres_url
):
    flags = _kept_flag_after_upgrade(make_app, empty_postgres_url)
    assert flags == {"kept": True, "plain": False, "off": False}


def _groups_after_upgrade(make_app, url):
    """Group names stored before they had one form ("/physics/cms" from Keycloak) take it, in
    users' groups, quota limits (the later of two spellings kept) and the limits' history."""
    from sqlalchemy import text

    app = make_app(SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        db.drop_all()
        upgrade(revision="7e0a1b2c3d4e")
        user_id = _user_as_first_stored("ada")
        db.session.execute(
            text("UPDATE users SET groups = :groups WHERE id = :id"),
            {"groups": '["/physics/cms", "physics/cms", "chemistry", "/"]', "id": user_id},
        )
        for subject, gpus, when in (
            ("/physics/cms", 1, "2026-01-02 00:00:00"),
            ("physics/cms", 4, "2026-01-01 00:00:00"),
            ("/chemistry/", 2, "2026-01-01 00:00:00"),
        ):
            db.session.execute(
                text(
                    "INSERT INTO quota_limits (scope, subject, limits, updated_at)"
                    " VALUES ('group', :subject, :limits, :when)"
                ),
                {"subject": subject, "limits": f'{{"gpus": {gpus}}}', "when": when},
            )
        db.session.execute(
            text(
                "INSERT INTO quota_changes (at, actor_name, scope, subject, old, new, reason)"
                " VALUES (CURRENT_TIMESTAMP, 'op', 'member', '/physics/cms', '{}', '{}', 'x')"
            )
        )
        db.session.commit()
        upgrade()
        groups = db.session.execute(text("SELECT groups FROM users")).scalar_one()
        limits = db.session.execute(
            text("SELECT subject, limits FROM quota_limits ORDER BY subject")
        ).all()
        history = db.session.execute(text("SELECT subject FROM quota_changes")).scalars().all()
    import json

    def loaded(value):
        return json.loads(value) if isinstance(value, str) else value

    return loaded(groups), [(s, loaded(v)) for s, v in limits], history


def test_stored_group_names_take_the_one_form_on_sqlite(make_app, tmp_path):
    groups, limits, history = _groups_after_upgrade(make_app, f"sqlite:///{tmp_path}/g.sqlite")
    assert groups == ["chemistry", "physics/cms"]
    assert limits == [("chemistry", {"gpus": 2}), ("physics/cms", {"gpus": 1})]
    assert history == ["physics/cms"]


@pytest.mark.postgres
def test_stored_group_names_take_the_one_form_on_postgresql(make_app, empty_postgres_url):
    groups, limits, history = _groups_after_upgrade(make_app, empty_postgres_url)
    assert groups == ["chemistry", "physics/cms"]
    assert limits == [("chemistry", {"gpus": 2}), ("physics/cms", {"gpus": 1})]
    assert history == ["physics/cms"]


def _language_columns_round_trip(make_app, url):
    """The account's language and time zone are stored, and a downgrade removes them again."""
    app = _migrated_app(make_app, url)
    with app.app_context():
        user = create_local_user("ada", "correct horse battery", "Ada Lovelace")
        user.locale, user.timezone = "it", "Europe/Rome"
        db.session.commit()
        db.session.expire_all()
        assert (db.session.get(User, user.id).locale, user.timezone) == ("it", "Europe/Rome")
        db.session.remove()
        downgrade(revision="b7c4d2e9f1a3")
        columns = {column["name"] for column in inspect(db.engine).get_columns("users")}
        assert "locale" not in columns and "timezone" not in columns


def test_the_language_columns_come_and_go_on_sqlite(make_app, tmp_path):
    _language_columns_round_trip(make_app, f"sqlite:///{tmp_path}/language.sqlite")


@pytest.mark.postgres
def test_the_language_columns_come_and_go_on_postgresql(make_app, empty_postgres_url):
    _language_columns_round_trip(make_app, empty_postgres_url)
