"""Who may read /metrics: this host always; others only with METRICS_TOKEN as a bearer token,
judged by the forwarded address when proxies are trusted. No session or cookie is involved."""

import pytest

pytestmark = pytest.mark.sqlite_only("who may scrape does not depend on the database")

TOKEN = "scrape-" + "t" * 32
ELSEWHERE = {"REMOTE_ADDR": "192.0.2.7"}


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_loopback_clients_read_the_metrics_without_a_token(app, address):
    answer = app.test_client().get("/metrics", environ_base={"REMOTE_ADDR": address})

    assert answer.status_code == 200
    assert answer.content_type.startswith("text/plain; version=")
    assert "portal_http_requests_total" in answer.text


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
    ids=["none", "wrong", "longer", "other-scheme", "no-scheme"],
)
def test_other_clients_without_the_right_token_are_refused(app, headers):
    answer = app.test_client().get("/metrics", headers=headers, environ_base=ELSEWHERE)

    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert answer.text == "Metrics need the bearer token set in METRICS_TOKEN.\n"
    assert "portal_" not in answer.text


def test_other_clients_with_the_token_read_the_metrics(app):
    answer = app.test_client().get(
        "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, environ_base=ELSEWHERE
    )

    assert answer.status_code == 200 and "portal_http_requests_total" in answer.text


def test_without_a_token_configured_only_this_host_may_read(make_app):
    client = make_app(METRICS_TOKEN="").test_client()

    refused = client.get("/metrics", headers={"Authorization": "Bearer "}, environ_base=ELSEWHERE)

    assert refused.status_code == 403
    assert refused.text == "Metrics are served to this host only.\n"
    assert client.get("/metrics").status_code == 200


def test_behind_trusted_proxies_the_forwarded_address_decides(make_app):
    client = make_app(PROXY_FIX=1, METRICS_TOKEN=TOKEN).test_client()
    through_proxy = {"REMOTE_ADDR": "127.0.0.1"}

    outsider = client.get(
        "/metrics", headers={"X-Forwarded-For": "192.0.2.7"}, environ_base=through_proxy
    )
    local = client.get(
        "/metrics", headers={"X-Forwarded-For": "127.0.0.1"}, environ_base=through_proxy
    )
    # A client cannot pass for local by sending the header itself: the proxy appends the
    # address it saw, and only that last one is trusted.
    forged = client.get(
        "/metrics", headers={"X-Forwarded-For": "127.0.0.1, 192.0.2.7"}, environ_base=through_proxy
    )

    assert outsider.status_code == 401 and forged.status_code == 401
    assert local.status_code == 200


def test_a_scrape_sets_no_cookie_and_needs_no_csrf_token(app):
    client = app.test_client()

    answer = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert answer.status_code == 200
    assert "Set-Cookie" not in answer.headers
    assert answer.headers["Cache-Control"] == "no-store"
    assert client.get_cookie("session") is None
    assert client.post("/metrics").status_code == 405


def test_a_refusal_is_told_in_the_callers_language(app, make_app):
    italian = {"Accept-Language": "it"}
    answer = app.test_client().get("/metrics", headers=italian, environ_base=ELSEWHERE)
    assert answer.status_code == 401
    assert answer.text == "Per le metriche serve il token bearer impostato in METRICS_TOKEN.\n"

    portal = make_app(ORCHESTRATOR_URL="demo", METRICS_TOKEN="")
    refused = portal.test_client().get("/metrics", headers=italian, environ_base=ELSEWHERE)
    assert refused.status_code == 403
    assert refused.text == "Le metriche sono disponibili solo per questo host.\n"
