"""The deployments routes: launch, read, list, relaunch, delete and secrets, with their errors."""

from app.auth.models import User
from app.deployments.models import Deployment
from app.extensions import db
from app.quotas.editing import set_limits

PROBLEM = "application/problem+json"


def _count(app) -> int:
    with app.app_context():
        return db.session.query(Deployment).count()


def test_a_launch_answers_201_with_the_deployment_and_its_address(callers, app):
    ada = callers("ada")
    answer = ada.launch(name="course")
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    assert body["name"] == "course"
    assert body["template"] == "test-notebook"
    assert body["status"] in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")
    assert answer.headers["Location"].endswith(f"/api/v1/deployments/{body['id']}")
    assert body["parameters"] == {"num_cpus": 2}  # the typed password is not kept
    assert "Set-Cookie" not in answer.headers
    again = ada.get(f"/api/v1/deployments/{body['id']}")
    assert again.status_code == 200
    assert [step["status"] for step in again.get_json()["timeline"]][0] == "SUBMITTING"


def test_omitted_parameters_take_the_defaults_and_generated_secrets_are_shown_to_the_owner(
    callers,
):
    ada = callers("ada")
    answer = ada.launch(template="secret-notebook", parameters={})
    assert answer.status_code == 201, answer.get_json()
    deployment = answer.get_json()
    assert "jupyter_password" in deployment["secrets"]
    revealed = ada.post(f"/api/v1/deployments/{deployment['id']}/secrets")
    assert revealed.status_code == 200
    assert len(revealed.get_json()["values"]["jupyter_password"]) >= 12


def test_invalid_parameters_answer_422_with_each_inputs_message_and_launch_nothing(callers, app):
    ada = callers("ada")
    answer = ada.launch(parameters={"num_cpus": "many", "colour": "red"})
    assert answer.status_code == 422
    assert answer.mimetype == PROBLEM
    problem = answer.get_json()
    assert problem["type"].endswith("/problems/invalid-parameters")
    assert set(problem["errors"]) == {"num_cpus", "colour", "jupyter_password"}
    assert problem["errors"]["jupyter_password"] == ["This field is required."]
    assert _count(app) == 0


def test_invalid_parameters_are_told_in_the_callers_language(callers, app):
    ada = callers("ada")
    answer = ada.launch(parameters={"num_cpus": 2}, headers={"Accept-Language": "it"})
    assert answer.status_code == 422
    assert answer.get_json()["errors"]["jupyter_password"] == ["Questo campo è obbligatorio."]
    assert _count(app) == 0


def test_a_dry_run_returns_the_cost_and_fit_and_changes_nothing(callers, app):
    ada = callers("ada")
    answer = ada.post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "test-notebook", "parameters": {"num_cpus": 4, "jupyter_password": "x"}},
    )
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["cost"]["cores"] == 4
    assert body["fit"]["fits"] is True
    assert _count(app) == 0


def test_over_quota_answers_409_with_the_forms_sentence_and_the_fit(callers, app):
    ada = callers("ada")
    with app.app_context():
        set_limits(None, "user", str(ada.user_id), {"cores": 2}, "test")
    dry = ada.post(
        "/api/v1/deployments?dry_run=true",
        json={"template": "test-notebook", "parameters": {"num_cpus": 4, "jupyter_password": "x"}},
    )
    assert dry.get_json()["fit"]["fits"] is False
    answer = ada.launch(parameters={"num_cpus": 4, "jupyter_password": "x"})
    assert answer.status_code == 409
    problem = answer.get_json()
    assert problem["type"].endswith("/problems/over-quota")
    assert "does not fit" in problem["detail"]
    assert problem["fit"]["fits"] is False
    assert problem["fit"]["problems"] == dry.get_json()["fit"]["problems"]
    assert _count(app) == 0


def test_the_launch_rate_limit_answers_429_with_retry_after(callers, app):
    app.config["LAUNCHES_PER_MINUTE"] = 1
    ada = callers("ada")
    assert ada.launch(name="one").status_code == 201
    answer = ada.launch(name="two")
    assert answer.status_code == 429
    assert answer.headers["Retry-After"] == "60"
    assert answer.get_json()["type"].endswith("/problems/rate-limited")
    assert "Nothing was launched" in answer.get_json()["detail"]


def test_others_deployments_are_404_and_admins_see_them(callers):
    ada, bob = callers("ada"), callers("bob")
    admin = callers("root", admin=True)
    deployment_id = ada.launch().get_json()["id"]
    assert bob.get(f"/api/v1/deployments/{deployment_id}").status_code == 404
    assert bob.delete(f"/api/v1/deployments/{deployment_id}").status_code == 404
    assert bob.post(f"/api/v1/deployments/{deployment_id}/secrets").status_code == 404
    assert admin.get(f"/api/v1/deployments/{deployment_id}").status_code == 200
    # Admins see it but not its secrets, as on the page.
    assert admin.post(f"/api/v1/deployments/{deployment_id}/secrets").status_code == 404
    everyone = admin.get("/api/v1/deployments?user=*").get_json()
    assert [item["owner"] for item in everyone["items"]] == ["ada"]
    assert bob.get("/api/v1/deployments?user=*").get_json()["total"] == 0


def test_relaunch_and_delete(callers, app):
    ada = callers("ada")
    first = ada.launch(template="secret-notebook", parameters={}).get_json()
    again = ada.post(f"/api/v1/deployments/{first['id']}/relaunch", json={"name": "again"})
    assert again.status_code == 201, again.get_json()
    assert again.get_json()["name"] == "again"
    gone = ada.delete(f"/api/v1/deployments/{first['id']}")
    assert gone.status_code == 202
    assert gone.get_json()["status"] == "DELETE_IN_PROGRESS"
    missing = ada.post("/api/v1/deployments/999999/relaunch", json={"name": "x"})
    assert missing.status_code == 404
    assert missing.get_json()["type"].endswith("/problems/not-found")


def test_an_unknown_template_is_404_and_a_malformed_body_is_400(callers):
    ada = callers("ada")
    assert ada.launch(template="nope").status_code == 404
    bad = ada.post("/api/v1/deployments", json={"template": "test-notebook", "extra": 1})
    assert bad.status_code == 400
    assert "extra" in bad.get_json()["errors"]
    not_json = ada.post("/api/v1/deployments", data="x", content_type="text/plain")
    assert not_json.status_code == 400
    assert not_json.mimetype == PROBLEM


def test_a_disabled_account_cannot_launch_with_its_token(callers, app):
    from app.auth.operations import set_active

    ada = callers("ada")
    with app.app_context():
        set_active(db.session.get(User, ada.user_id), False)
    answer = ada.launch()
    assert answer.status_code == 401
