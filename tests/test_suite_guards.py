"""The suite's own guards: connections stay on loopback, databases are the ones promised."""

import socket
import time

import pytest
import requests
from sqlalchemy import create_engine, text

from tests.fixtures.network import OffLoopbackConnection

# Documentation addresses (RFC 5737, RFC 3849): nothing answers there, and nothing is sent.
OUTSIDE = [("192.0.2.1", 80, socket.AF_INET), ("2001:db8::1", 80, socket.AF_INET6)]


@pytest.mark.parametrize(("host", "port", "family"), OUTSIDE)
def test_a_socket_connecting_outside_loopback_is_refused_and_recorded(
    network_guard, host, port, family
):
    with socket.socket(family) as sock, pytest.raises(OffLoopbackConnection):
        sock.connect((host, port))
    with socket.socket(family) as sock, pytest.raises(OffLoopbackConnection):
        sock.connect_ex((host, port))
    assert network_guard.attempts == [f"{host}:{port}"] * 2
    network_guard.attempts.clear()  # this test's attempts were on purpose


def test_a_swallowed_attempt_through_a_library_still_fails_the_test(network_guard):
    with pytest.raises(requests.ConnectionError):
        requests.get("http://example.org/", timeout=1)
    assert network_guard.attempts == ["example.org:80"]
    network_guard.attempts.clear()


def test_loopback_connections_are_allowed(network_guard):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
        with socket.create_connection(("localhost", server.getsockname()[1]), timeout=2):
            pass
    assert network_guard.attempts == []


def test_apps_outside_the_feature_folders_run_on_sqlite_alone(app, database):
    assert database == "sqlite"
    assert app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite:///")


def _schemas(postgres) -> set[str]:
    with postgres.connect() as conn:
        return {name for (name,) in conn.execute("SELECT nspname FROM pg_namespace")}


def test_a_test_schema_is_dropped_even_when_a_connection_was_left_inside_it(
    postgres_test_database,
):
    postgres = postgres_test_database
    schema = postgres.create_schema(script="CREATE TABLE held (id integer)")
    engine = create_engine(postgres.sqlalchemy_url(schema))
    connection = engine.connect()
    connection.execute(text("LOCK TABLE held IN ACCESS EXCLUSIVE MODE"))  # and never finished
    postgres.drop_schema(schema)
    assert schema not in _schemas(postgres)
    connection.invalidate()
    engine.dispose()


def test_schemas_left_by_an_interrupted_run_are_dropped_hours_later(postgres_test_database):
    postgres = postgres_test_database
    old = f"t_{int(time.time()) - postgres.STALE_AFTER_SECONDS - 60}_0badc0de"
    with postgres.connect() as conn:
        conn.execute(f'CREATE SCHEMA "{old}"')
    recent = postgres.create_schema()
    postgres.drop_stale_schemas()
    assert old not in _schemas(postgres) and recent in _schemas(postgres)
    postgres.drop_schema(recent)
