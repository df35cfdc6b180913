"""Login throttling holds under parallel guessing, and its table stays small."""

import multiprocessing
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from app import create_app
from app.auth import ldap, throttle
from app.auth.models import LoginFailure
from app.clock import utcnow
from app.extensions import db
from tests.conftest import TEST_CONFIG, People, csrf_from

PARALLEL = 20


def login_page_token(client) -> str:
    return csrf_from(client.get("/login").get_data(as_text=True))


def wrong_ldap_login(client, token: str):
    return client.post(
        "/login",
        data={"csrf_token": token, "username": "ada", "password": "guess", "method": "ldap"},
    )


@pytest.fixture
def counted_ldap(monkeypatch):
    """Counts the logins that reach the directory."""
    calls, lock, real = [], threading.Lock(), ldap.authenticate

    def authenticate(*args, **kwargs):
        with lock:
            calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(ldap, "authenticate", authenticate)
    return calls


def test_twenty_parallel_wrong_attempts_reach_the_directory_at_most_five_times(
    make_app, slapd, counted_ldap
):
    app = make_app(LDAP=slapd.settings())
    clients = [app.test_client() for _ in range(PARALLEL)]
    tokens = [login_page_token(client) for client in clients]
    start, statuses = threading.Barrier(PARALLEL), []

    def attempt(client, token):
        start.wait()
        statuses.append(wrong_ldap_login(client, token).status_code)

    threads = [
        threading.Thread(target=attempt, args=pair) for pair in zip(clients, tokens, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    limit = app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]
    assert len(counted_ldap) == limit
    assert sorted(statuses) == [401] * limit + [429] * (PARALLEL - limit)


def _guess_in_a_process(config, start, reached, results):
    # A worker process of its own, as gunicorn would run: its own app, engine and connections.
    real = ldap.authenticate

    def authenticate(*args, **kwargs):
        with reached.get_lock():
            reached.value += 1
        return real(*args, **kwargs)

    ldap.authenticate = authenticate
    app = create_app(config)
    client = app.test_client()
    token = login_page_token(client)
    start.wait()
    results.put(wrong_ldap_login(client, token).status_code)


def test_parallel_guesses_from_separate_processes_reach_the_directory_at_most_five_times(
    make_app, slapd, database
):
    app = make_app(LDAP=slapd.settings())
    config = {
        **TEST_CONFIG,
        "LDAP": slapd.settings(),
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
    }
    context = multiprocessing.get_context("fork")
    start, reached, results = context.Barrier(PARALLEL), context.Value("i", 0), context.Queue()
    workers = [
        context.Process(target=_guess_in_a_process, args=(config, start, reached, results))
        for _ in range(PARALLEL)
    ]
    for worker in workers:
        worker.start()
    statuses = sorted(results.get(timeout=60) for _ in workers)
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    limit = app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]
    assert reached.value == limit
    assert statuses == [401] * limit + [429] * (PARALLEL - limit)


def test_expired_counters_are_purged_when_a_failure_is_recorded(app, people):
    with app.app_context():
        stale = utcnow() - timedelta(seconds=app.config["LOGIN_THROTTLE_WINDOW_SECONDS"] + 1)
        db.session.add_all(
            LoginFailure(key=f"account:old-{n}", failures=3, window_start=stale) for n in range(50)
        )
        db.session.commit()
    assert people.login("nobody", "guess").status_code == 401
    with app.app_context():
        keys = set(db.session.scalars(select(LoginFailure.key)))
    assert keys == {"account:nobody", "address:127.0.0.1"}


def test_a_throttled_address_adds_no_rows_whatever_names_it_tries(make_app):
    app = make_app(LOGIN_MAX_FAILURES_PER_ADDRESS=3)
    people = People(app, app.test_client())
    statuses = [people.login(f"guess-{n}", "guess").status_code for n in range(12)]
    assert statuses == [401] * 3 + [429] * 9
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(LoginFailure)) == 4


def test_a_counter_whose_window_has_passed_starts_again(app, people):
    people.create("ada")
    limit = app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]
    for _ in range(limit):
        people.login("ada", "guess")
    assert people.login("ada").status_code == 429
    with app.app_context():
        stale = utcnow() - timedelta(seconds=app.config["LOGIN_THROTTLE_WINDOW_SECONDS"])
        db.session.execute(update(LoginFailure).values(window_start=stale))
        db.session.commit()
    assert people.login("ada").status_code == 302


def test_a_directory_that_cannot_be_asked_does_not_use_up_attempts(make_app, slapd):
    app = make_app(LDAP=slapd.settings(url="ldap://127.0.0.1:1", connect_timeout=1))
    client = app.test_client()
    limit = app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]
    for _ in range(limit + 2):
        assert wrong_ldap_login(client, login_page_token(client)).status_code == 503
    with app.app_context():
        assert set(db.session.scalars(select(LoginFailure.failures))) <= {0}


def test_purge_expired_reports_how_many_counters_it_removed(app):
    with app.app_context():
        stale = utcnow() - timedelta(hours=1)
        db.session.add(LoginFailure(key="address:x", failures=1, window_start=stale))
        db.session.add(LoginFailure(key="address:y", failures=1, window_start=utcnow()))
        db.session.commit()
        assert throttle.purge_expired() == 1
        assert db.session.scalar(select(LoginFailure.key)) == "address:y"
