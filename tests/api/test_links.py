"""The API's absolute addresses stand on the configured base address, whatever Host header a
request forges; without one they follow the request."""

import pytest

from tests.api.conftest import Callers, publish_templates

BASE = "https://portal.example.org"
FORGED = {"Host": "attacker.example"}


@pytest.fixture
def ada(make_app):
    app = make_app(PORTAL_BASE_URL=BASE + "/", LAUNCHES_PER_MINUTE=0)
    publish_templates(app)
    return Callers(app)("ada")


def addresses(body) -> list[str]:
    """Every string in ``body`` that looks like an absolute address."""
    if isinstance(body, dict):
        return [found for value in body.values() for found in addresses(value)]
    if isinstance(body, list):
        return [found for value in body for found in addresses(value)]
    return [body] if isinstance(body, str) and "://" in body else []


def test_links_location_and_problem_types_stand_on_the_base_address_despite_a_forged_host(ada):
    launched = ada.launch("one", headers=FORGED)
    listed = ada.get("/api/v1/deployments", headers=FORGED).get_json()
    missing = ada.get("/api/v1/deployments/999", headers=FORGED).get_json()
    document = ada.get("/api/v1/openapi.json", headers=FORGED).get_json()

    assert launched.status_code == 201
    assert launched.headers["Location"] == f"{BASE}/api/v1/deployments/{launched.get_json()['id']}"
    assert missing["type"] == f"{BASE}/api/v1/problems/not-found"
    assert document["servers"][0]["url"] == f"{BASE}/api/v1"
    found = addresses(launched.get_json()) + addresses(listed) + addresses(missing)
    assert len(found) >= 6
    assert all(address.startswith(BASE + "/") for address in found), found
    assert "attacker" not in str(listed) + str(launched.headers)


def test_without_a_base_address_links_follow_the_request(make_app):
    app = make_app(PORTAL_BASE_URL="")
    ada = Callers(app)("ada")

    missing = ada.get("/api/v1/deployments/999", headers={"Host": "portal.internal"})

    assert missing.get_json()["type"] == "http://portal.internal/api/v1/problems/not-found"
