"""A person's very first login, arriving twice at the same moment (two tabs, two hosts behind
a load balancer): both logins succeed, on one user record."""

from sqlalchemy import func, select

from app import create_app
from app.auth.identity import Identity
from app.auth.models import User
from app.auth.operations import record_identity
from app.extensions import db
from tests.conftest import TEST_CONFIG
from tests.processes import race

PARALLEL = 8
ADA = Identity("oidc", "sub-ada", "ada@iam", "Ada Lovelace", "ada@example.org", ("physics",))


def _first_login_in_a_process(config, start, results):
    # A worker process of its own, as gunicorn would run: its own app, engine and connections.
    app = create_app(config)
    with app.app_context():
        start.wait()
        try:
            results.put(record_identity(ADA).id)
        except Exception as error:  # reported to the test, which fails on it
            results.put(f"error: {error!r}")
        db.engine.dispose()


def test_simultaneous_first_logins_share_one_user_record(make_app, database):
    app = make_app()
    config = {**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"]}
    outcomes = race(
        _first_login_in_a_process, [(config,)] * PARALLEL, parties=PARALLEL, outcomes=PARALLEL
    )
    assert len(set(outcomes)) == 1 and isinstance(outcomes[0], int), outcomes
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(User)) == 1
