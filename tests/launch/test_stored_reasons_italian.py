"""Why a launch is unconfirmed or was not launched is kept in the deployment's record as one
whole English sentence, and told to each reader in their language when shown."""

import pytest
from flask_babel import force_locale

from app.deployments.errors import LaunchError
from app.deployments.words import said


def told(app, reason):
    """``reason`` as an English reader and an Italian one read it."""
    with app.test_request_context():
        english = said(reason)
        with force_locale("it"):
            return english, said(reason)


@pytest.mark.parametrize(
    ("mode", "english", "italian"),
    [
        (
            "504",
            "The orchestrator did not answer in time, or failed while answering. It may have "
            "created the deployment; the portal is checking and will not submit it again.",
            "L'orchestratore non ha risposto in tempo, oppure ha avuto un errore mentre "
            "rispondeva. Potrebbe aver creato il deployment: il portale sta verificando e non "
            "lo invierà di nuovo.",
        ),
        (
            "drop",
            "The orchestrator did not answer in time, or failed while answering. It may have "
            "created the deployment; the portal is checking and will not submit it again.",
            "L'orchestratore non ha risposto in tempo, oppure ha avuto un errore mentre "
            "rispondeva. Potrebbe aver creato il deployment: il portale sta verificando e non "
            "lo invierà di nuovo.",
        ),
    ],
)
def test_an_unconfirmed_launch_says_why_in_the_readers_language(emulated, mode, english, italian):
    ada = emulated.user("ada")
    emulated.emulator.set_faults(lose_create_response=mode, paths=["POST /deployments"])

    deployment = emulated.row(emulated.launch(ada))
    emulated.emulator.clear_faults()

    assert deployment.status == "UNCONFIRMED"
    assert deployment.status_reason == english  # stored as the English message id
    assert told(emulated.app, deployment.status_reason) == (english, italian)
    [*_, event] = deployment.events
    assert told(emulated.app, event.reason) == (english, italian)


def test_a_launch_the_orchestrator_never_received_says_so_in_the_readers_language(
    make_app, orchestrator_emulator, emulated_settings, closed_port_url
):
    from tests.deployments.conftest import Emulated
    from tests.launch.test_workflow import _emulated

    emulated = _emulated(make_app, orchestrator_emulator, emulated_settings, Emulated)
    emulated.app.config["ORCHESTRATOR_URL"] = closed_port_url
    ada = emulated.user("ada")

    with pytest.raises(LaunchError):
        emulated.launch(ada)

    with emulated.app.app_context():
        from app.deployments.models import Deployment
        from app.extensions import db

        [row] = db.session.scalars(db.select(Deployment)).all()
        assert told(emulated.app, row.status_reason) == (
            "The orchestrator is not answering right now. Nothing was launched. Try again in a "
            "few minutes.",
            "L'orchestratore al momento non risponde. Non è stato avviato nulla. Riprova tra "
            "qualche minuto.",
        )


def test_a_portal_not_set_up_for_the_orchestrator_says_so_in_the_readers_language(app):
    from app.launch.submitting import NOT_SET_UP

    english, italian = told(app, NOT_SET_UP)
    assert english == NOT_SET_UP
    assert italian.startswith("Il collegamento del portale all'orchestratore")
