"""API problems speak the caller's language, as the pages do: Accept-Language, or the language
the token's owner chose; the OpenAPI document stays English."""

import pytest

from app.auth.models import User
from app.extensions import db
from app.quotas.editing import set_limits

IT = {"Accept-Language": "it"}


def test_an_api_error_is_in_italian_when_the_request_asks_for_it(app):
    client = app.test_client()
    problem = client.get("/api/v1/deployments", headers=IT).get_json()
    assert problem["title"] == "Serve un token di accesso valido"
    assert problem["detail"].startswith("Invia un token di accesso personale")
    english = client.get("/api/v1/deployments").get_json()
    assert english["title"] == "A valid access token is needed"


def test_over_quota_and_validation_messages_follow_accept_language(callers, app):
    ada = callers("ada")
    with app.app_context():
        set_limits(None, "user", str(ada.user_id), {"cores": 1}, "test")
    refused = ada.launch(parameters={"num_cpus": 2, "jupyter_password": "x"}, headers=IT)
    assert refused.status_code == 409
    problem = refused.get_json()
    assert problem["title"] == "Questo avvio supera la tua quota"
    assert problem["detail"].startswith(
        "Questo avvio supera la tua quota. Richiede 2 core, ma il tuo limite è 1 core"
    )
    assert problem["fit"]["problems"][0].startswith("Richiede 2 core")
    invalid = ada.post("/api/v1/deployments", json={"name": "x" * 200, "extra": 1}, headers=IT)
    problem = invalid.get_json()
    assert problem["detail"] == "Il corpo della richiesta non è valido; non è stato fatto nulla."
    assert problem["errors"] == {
        "template": ["Serve un valore."],
        "name": ["Inserisci al massimo 120 caratteri."],
        "extra": ["Campo sconosciuto."],
    }
    english = ada.post("/api/v1/deployments", json={"extra": 1}).get_json()
    assert english["errors"] == {
        "template": ["A value is required."],
        "extra": ["Unknown field."],
    }


def test_the_tokens_owner_language_wins_over_accept_language(callers, app, monkeypatch):
    giulia = callers("giulia")
    if "locale" in User.__table__.columns:
        with app.app_context():
            db.session.get(User, giulia.user_id).locale = "it"
            db.session.commit()
    else:  # until accounts keep a chosen language
        owner = giulia.user_id
        monkeypatch.setattr(
            User, "locale", property(lambda u: "it" if u.id == owner else None), raising=False
        )
    problem = giulia.get("/api/v1/deployments/999", headers={"Accept-Language": "en"}).get_json()
    assert problem["title"] == "Qui non c'è niente"
    ada = callers("ada")
    assert ada.get("/api/v1/deployments/999").get_json()["title"] == "Nothing here"


@pytest.mark.parametrize("language", ["it", "en"])
def test_the_openapi_document_stays_english(app, language):
    document = app.test_client().get("/api/v1/openapi.json", headers={"Accept-Language": language})
    text = document.get_data(as_text=True)
    assert "A valid access token is needed" in text and "Serve un token" not in text


def test_an_unknown_api_address_answers_in_the_callers_language(app):
    problem = app.test_client().get("/api/v1/nowhere", headers=IT).get_json()
    assert (problem["status"], problem["title"], problem["detail"]) == (
        404,
        "Qui non c'è niente",
        "Qui non c'è niente",
    )
    english = app.test_client().get("/api/v1/nowhere").get_json()
    assert english["detail"] == "Nothing here"
