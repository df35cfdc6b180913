"""What features read with the login check: in the same query, for the requests that want it,
and forgotten as soon as the request writes anything (it may be stale then)."""

import pytest
from flask import request
from flask_login import current_user, login_required
from sqlalchemy import event, func, select, update

from app.auth.logins import LoginReading, login_reading
from app.auth.models import User, UserSession
from app.extension_points import LOGIN_READINGS
from app.extensions import db


def _users_named_like_me(user_id_column):
    # Any scalar subquery about the person does: how many accounts share their username.
    other = User.__table__.alias()
    return (
        select(func.count())
        .select_from(other)
        .where(
            other.c.username
            == select(User.username).where(User.id == user_id_column).scalar_subquery()
        )
        .scalar_subquery()
    )


@pytest.fixture
def reading_app(make_app):
    """An app whose login check reads ``twins`` on requests without ``?skip``, with a route
    that tells what was read before and after the writes its query string asks for."""
    app = make_app()
    LOGIN_READINGS.add(
        app, LoginReading("twins", _users_named_like_me, lambda: "skip" not in request.args)
    )

    @app.get("/test/reading")
    @login_required
    def reading():
        before = login_reading("twins")
        if "add" in request.args:
            db.session.add(User(provider="local", subject="twin", username=current_user.username))
            db.session.flush()
        if "bulk" in request.args:
            db.session.execute(update(UserSession).values(address="elsewhere"))
        return {"before": before, "after": login_reading("twins")}

    return app


@pytest.fixture
def statements(reading_app):
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        seen.append(statement)

    with reading_app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    yield seen
    event.remove(engine, "before_cursor_execute", count)


def test_a_reading_comes_in_the_login_query(reading_app, people_for, statements):
    client = reading_app.test_client()
    people_for(reading_app, client).login_as("user", username="ada")
    statements.clear()
    answer = client.get("/test/reading").get_json()
    assert answer == {"before": 1, "after": 1}
    assert len(statements) == 1


def test_a_request_that_does_not_want_it_does_not_read_it(reading_app, people_for, statements):
    client = reading_app.test_client()
    people_for(reading_app, client).login_as("user", username="ada")
    answer = client.get("/test/reading?skip=1").get_json()
    assert answer == {"before": None, "after": None}


@pytest.mark.parametrize("write", ["add", "bulk"])
def test_a_reading_is_forgotten_once_the_request_writes(reading_app, people_for, write):
    client = reading_app.test_client()
    people_for(reading_app, client).login_as("user", username="ada")
    answer = client.get(f"/test/reading?{write}=1").get_json()
    assert answer == {"before": 1, "after": None}


def test_a_revoked_login_still_stops_the_next_request(reading_app, people_for):
    client = reading_app.test_client()
    people_for(reading_app, client).login_as("user", username="ada")
    assert client.get("/test/reading").status_code == 200
    with reading_app.app_context():
        db.session.execute(update(User).values(session_version=User.session_version + 1))
        db.session.commit()
    assert client.get("/test/reading").status_code == 302
