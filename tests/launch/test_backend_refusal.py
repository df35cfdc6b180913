"""A backend's refusal of a create is the person's request refused (4xx), not a server failure:
the page shows the form again with the backend's reason, the API says launch-refused."""

from app.deployments.models import Deployment
from app.extensions import db
from tests.api.conftest import PARAMETERS, Callers
from tests.launch.test_launch_form import form_data, login

REFUSAL = {"error_rate": 1.0, "error_status": 400, "paths": ["POST /deployments"]}


def _not_launched(emulated) -> Deployment:
    with emulated.app.app_context():
        row = db.session.scalar(db.select(Deployment))
        assert row.status == "NOT_LAUNCHED" and row.uuid is None
        return row


def test_the_launch_page_answers_a_refused_create_with_422_and_the_form_with_the_reason(
    emulated,
):
    emulated.user("ada")
    client = login(emulated, "ada")
    page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
    emulated.emulator.set_faults(**REFUSAL)

    answer = client.post(
        "/catalogue/test-notebook/",
        data=form_data(page, deployment_name="Mine", jupyter_password="s3cret-passw0rd"),
    )

    text = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "refused the request" in text and "Nothing was launched." in text
    assert 'value="Mine"' in text  # the form again, as filled in
    _not_launched(emulated)
    emulated.emulator.clear_faults()


def test_the_api_answers_a_refused_create_with_422_launch_refused_and_the_reason(emulated):
    ada = Callers(emulated.app)("ada")
    emulated.emulator.set_faults(**REFUSAL)

    answer = ada.launch(parameters=PARAMETERS)

    problem = answer.get_json()
    assert answer.status_code == 422 and problem["status"] == 422
    assert problem["type"].endswith("/problems/launch-refused")
    assert "refused the request" in problem["detail"]
    _not_launched(emulated)
    emulated.emulator.clear_faults()
