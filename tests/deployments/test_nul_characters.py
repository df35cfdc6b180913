"""A NUL character is text SQLite stores and PostgreSQL refuses: it is refused in words when a
person sends it, and dropped when the orchestrator does, the same on both databases."""

from sqlalchemy import func, select

from app.deployments.models import Deployment
from app.extensions import db
from tests.deployments.test_callbacks import callback_url, completed_json
from tests.launch.test_launch_form import form_data, login


def deployments_count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Deployment.id)))


def test_a_name_holding_a_nul_character_is_refused_in_words_and_nothing_is_recorded(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)

    answer = client.post(
        "/catalogue/test-notebook/",
        data=form_data(page, deployment_name="Thesis\x00runs", jupyter_password="s3cret-passw0rd"),
    )

    assert answer.status_code == 400
    assert "NUL character" in answer.get_data(as_text=True)
    assert deployments_count(emulated.app) == 0 and emulated.posts() == 0


def test_a_search_holding_a_nul_character_is_refused_in_words(emulated):
    emulated.user("ada")
    client = login(emulated, "ada")

    answer = client.get("/deployments/?q=gpu%00")

    assert answer.status_code == 400 and "NUL character" in answer.get_data(as_text=True)


def test_a_nul_character_from_the_orchestrator_is_dropped_from_what_is_kept(emulated):
    ada = emulated.user("ada")
    launched = emulated.row(emulated.launch(ada))
    body = {
        **completed_json(launched),
        "status": "CREATE_FAILED",
        "statusReason": "No quota\x00 left",
        "cloudProviderName": "site\x00-a",
    }

    answer = emulated.app.test_client().post(callback_url(launched), json=body)

    assert answer.status_code == 204
    row = emulated.row(launched.id)
    assert (row.status, row.status_reason, row.site) == ("failed", "No quota left", "site-a")
