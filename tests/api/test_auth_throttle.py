"""Refused API tokens are throttled per client address, and an identity provider is asked
about tokens the portal cannot read at most so often, across worker processes: both answer
429 with Retry-After and a sentence."""

import multiprocessing
import secrets

import pytest
from sqlalchemy import select

from app import create_app
from app.auth import provider_tokens
from app.auth.models import LoginFailure, User
from app.auth.tokens import access_token_for
from app.clock import use_clock
from app.extensions import db
from tests.api.conftest import Callers
from tests.conftest import TEST_CONFIG
from tests.leases.conftest import MovableClock

PARALLEL = 12


@pytest.fixture
def clock():
    moved = MovableClock()
    with use_clock(moved):
        yield moved


def get(app, token: str, address: str = "192.0.2.1"):
    return app.test_client().get(
        "/api/v1/templates",
        headers={"Authorization": f"Bearer {token}"},
        environ_base={"REMOTE_ADDR": address},
    )


def test_an_address_whose_tokens_keep_failing_is_refused_until_the_window_passes(make_app, clock):
    app = make_app(API_MAX_FAILURES_PER_ADDRESS=3, API_THROTTLE_WINDOW_SECONDS=300)
    good = Callers(app)("ada").token

    statuses = [get(app, f"rcp_wrong-{n}").status_code for n in range(3)]
    throttled = get(app, good)

    assert statuses == [401, 401, 401]
    assert throttled.status_code == 429
    assert throttled.mimetype == "application/problem+json"
    assert throttled.get_json()["type"].endswith("/too-many-attempts")
    assert throttled.get_json()["detail"] == (
        "Too many requests with tokens that are not valid came from your address. Wait 5 "
        "minutes before trying again."
    )
    assert 0 < int(throttled.headers["Retry-After"]) <= 301
    assert get(app, good, address="192.0.2.2").status_code == 200  # another address
    clock.move(seconds=301)
    assert get(app, good).status_code == 200


def test_the_throttle_answers_in_italian(make_app):
    app = make_app(API_MAX_FAILURES_PER_ADDRESS=1)
    get(app, "rcp_wrong")

    answer = app.test_client().get(
        "/api/v1/templates",
        headers={"Authorization": "Bearer rcp_wrong", "Accept-Language": "it"},
        environ_base={"REMOTE_ADDR": "192.0.2.1"},
    )

    assert answer.status_code == 429
    assert "indirizzo" in answer.get_json()["detail"]


def test_a_request_without_a_token_is_not_counted(make_app):
    app = make_app(API_MAX_FAILURES_PER_ADDRESS=1)
    for _ in range(3):
        assert app.test_client().get("/api/v1/templates").status_code == 401
    with app.app_context():
        assert db.session.scalars(select(LoginFailure)).all() == []


@pytest.fixture
def oidc_config(oidc_provider):
    provider_tokens._remembered.clear()
    return {"OIDC_PROVIDERS": [oidc_provider.config()], "API_PROVIDER_CHECKS_PER_MINUTE": 3}


@pytest.fixture
def counted_userinfo(monkeypatch):
    calls, real = [], provider_tokens._ask_userinfo

    def ask(provider, token):
        calls.append(token)
        return real(provider, token)

    monkeypatch.setattr(provider_tokens, "_ask_userinfo", ask)
    return calls


def test_unknown_tokens_reach_the_provider_at_most_the_configured_times_a_minute(
    make_app, oidc_config, counted_userinfo, clock
):
    app = make_app(**oidc_config)
    addresses = [f"192.0.2.{n}" for n in range(10, 16)]

    answers = [get(app, f"made-up-{n}", address) for n, address in enumerate(addresses)]
    again = get(app, "made-up-0", "192.0.2.10")  # refused a moment ago: remembered

    assert [a.status_code for a in answers] == [401] * 3 + [429] * 3
    assert len(counted_userinfo) == 3
    assert again.status_code == 401 and len(counted_userinfo) == 3
    spent = answers[-1]
    assert spent.get_json()["detail"].startswith(
        "The portal asks its identity provider about tokens it does not know at most 3 times"
    )
    assert 0 < int(spent.headers["Retry-After"]) <= 61
    clock.move(seconds=61)
    assert get(app, "made-up-9", "192.0.2.30").status_code == 401
    assert len(counted_userinfo) == 4


def _ask_in_a_process(config, token, start, reached, results):
    # A worker process of its own, as gunicorn would run: its own app, engine and connections.
    real = provider_tokens._ask_userinfo

    def ask(provider, token):
        with reached.get_lock():
            reached.value += 1
        return real(provider, token)

    provider_tokens._ask_userinfo = ask
    provider_tokens._remembered.clear()
    app = create_app(config)
    start.wait()
    results.put(get(app, token, address=f"192.0.2.{token.rsplit('-', 1)[1]}").status_code)


def test_worker_processes_share_the_providers_budget(make_app, oidc_config, database):
    app = make_app(**oidc_config)
    config = {
        **TEST_CONFIG,
        **oidc_config,
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
    }
    context = multiprocessing.get_context("fork")
    start, reached, results = context.Barrier(PARALLEL), context.Value("i", 0), context.Queue()
    workers = [
        context.Process(
            target=_ask_in_a_process, args=(config, f"made-up-{n}", start, reached, results)
        )
        for n in range(PARALLEL)
    ]
    for worker in workers:
        worker.start()
    statuses = sorted(results.get(timeout=60) for _ in workers)
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    assert reached.value == 3
    assert statuses == [401] * 3 + [429] * (PARALLEL - 3)


def _opaque_token_of(app, oidc_provider, person: str) -> str:
    oidc_provider.log_in(app.test_client(), person)
    with app.app_context():
        user = db.session.scalar(select(User).where(User.subject == oidc_provider.sub(person)))
        token = access_token_for(user)
    assert token.count(".") != 2, "the provider should issue opaque access tokens"
    return token


def test_a_flood_of_made_up_tokens_leaves_a_real_users_provider_token_working(
    make_app, oidc_provider, counted_userinfo, clock
):
    provider_tokens._remembered.clear()
    app = make_app(OIDC_PROVIDERS=[oidc_provider.config()], API_PROVIDER_CHECKS_PER_MINUTE=40)
    token = _opaque_token_of(app, oidc_provider, "grace")
    flooders = [f"198.51.100.{n}" for n in range(1, 21)]

    flood = [get(app, secrets.token_urlsafe(24), a).status_code for a in flooders * 3]
    provider_tokens._remembered.clear()  # as on another worker process
    valid = get(app, token, "203.0.113.7")

    # Each address spends its share (2 a minute) and the flood as a whole stops short of the
    # reserve (10 of 40), which the real user's first check of the minute may use.
    assert flood.count(401) == 30 and flood.count(429) == 30
    assert len(counted_userinfo) == 31
    assert valid.status_code == 200, valid.get_json()
    refused = get(app, secrets.token_urlsafe(24), flooders[0])
    assert refused.status_code == 429
    assert "from your address this minute" in refused.get_json()["detail"]
    clock.move(seconds=61)
    assert get(app, secrets.token_urlsafe(24), flooders[0]).status_code == 401


def test_a_token_the_provider_refused_is_not_asked_about_again_from_any_process(
    make_app, oidc_config, counted_userinfo, clock
):
    app = make_app(**oidc_config)

    first = get(app, "made-up-once", "192.0.2.40")
    provider_tokens._remembered.clear()  # another worker process remembers nothing itself
    again = [get(app, "made-up-once", address) for address in ("192.0.2.40", "192.0.2.41")]

    assert first.status_code == 401 and [a.status_code for a in again] == [401, 401]
    assert counted_userinfo == ["made-up-once"]
    clock.move(seconds=301)  # the API window (API_THROTTLE_WINDOW_SECONDS) has passed
    provider_tokens._remembered.clear()
    assert get(app, "made-up-once", "192.0.2.42").status_code == 401
    assert counted_userinfo == ["made-up-once"] * 2
