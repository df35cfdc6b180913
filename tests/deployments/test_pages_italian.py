"""My deployments and a deployment's page speak the reader's language: Italian to an Italian
browser, English unchanged otherwise; what the timeline stored is worded when shown."""

import html as markup
import re

from app.clock import utcnow
from app.deployments.models import DeploymentEvent
from app.extensions import db
from tests.deployments.pages_support import GB, row_of, rows_of

ITALIAN = {"Accept-Language": "it"}


def text_of(html: str) -> str:
    """The words of ``html`` as a person reads them (tags dropped, entities decoded)."""
    return " ".join(markup.unescape(re.sub(r"<[^>]+>", "", html)).split())


def page(client, url: str, **headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def test_my_deployments_reads_in_italian_to_an_italian_and_in_english_otherwise(
    client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    deployment_id = make_deployment(
        user_id,
        charge={"cores": 1, "memory": 8 * GB, "gpus": 2},
        outputs={"jupyter_endpoint": "https://nb.example.org/"},
    )

    italian = page(client, "/deployments/", **ITALIAN)
    english = page(client, "/deployments/")

    row = text_of(row_of(italian, deployment_id))
    assert "Pronto" in row and "Apri Notebook" in row and "Elimina" in row
    assert "1 core, 8 GB di memoria, 2 GPU" in row
    assert "1 deployment" in text_of(rows_of(italian))
    assert "I miei deployment" in italian and "Qualsiasi stato" in italian
    assert "Ready" not in row and "Open Notebook" not in row

    row = text_of(row_of(english, deployment_id))
    assert "Ready" in row and "Open Notebook" in row and "1 core, 8 GB memory, 2 GPUs" in row
    assert "1 deployment" in text_of(rows_of(english))


def test_the_counts_of_the_list_take_the_plural_form_for_two(
    client, login_as, make_deployment, no_orchestrator
):
    user_id = login_as()
    make_deployment(user_id)
    make_deployment(user_id, status="failed")

    assert "2 deployments" in text_of(rows_of(page(client, "/deployments/")))
    matching = text_of(rows_of(page(client, "/deployments/?status=failed", **ITALIAN)))
    assert "1 deployment trovato" in matching
    assert "2 deployment trovati" in text_of(
        rows_of(page(client, "/deployments/?q=Test", **ITALIAN))
    )


def test_the_deployment_page_reads_in_italian(client, login_as, make_deployment, no_orchestrator):
    deployment_id = make_deployment(
        login_as(),
        status="failed",
        status_reason="Quota exceeded for instances",
        charge={"cores": 2, "nodes": 2},
    )

    html = text_of(page(client, f"/deployments/{deployment_id}", **ITALIAN))

    assert "Non riuscito" in html and "Il cloud non è riuscito a crearlo." in html
    assert "Motivo: Il sito cloud non ha più spazio nella sua quota" in html
    # What the orchestrator said stays in its own words.
    assert "Quota exceeded for instances" in html
    assert "2 macchine · 2 core" in html
    assert "Cronologia" in html and "Impostazioni" in html and "Modifica e avvia di nuovo" in html
    delete = text_of(page(client, f"/deployments/{deployment_id}/delete", **ITALIAN))
    assert "Eliminare Test notebook?" in delete and "Conservalo" in delete


def test_the_kept_secrets_are_listed_by_their_names_in_a_whole_italian_sentence(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(
        login_as(),
        secrets={"jupyter_password": "pw-1"},
        secret_outputs={"node_creds": {"user": "cloudadm", "token": "tok-1"}},
    )

    html = page(client, f"/deployments/{deployment_id}", **ITALIAN)
    panel = html[
        html.index('id="deployment-secrets"') : html.index(
            "</section>", html.index('id="deployment-secrets"')
        )
    ]

    # No word agrees with names it cannot know the gender of ("cifrati", "generati").
    assert "cifrati" not in text_of(panel) and "generati" not in text_of(panel)
    assert "Il portale conserva in forma cifrata quanto segue" in text_of(panel)
    items = re.findall(r"<li>([^<]*)</li>", panel)
    assert len(items) == 2 and all(item[:1].isupper() for item in items), items


def _record(app, deployment_id: int, **fields) -> None:
    with app.app_context():
        db.session.add(DeploymentEvent(deployment_id=deployment_id, at=utcnow(), **fields))
        db.session.commit()


def test_a_stored_event_reads_in_each_readers_language(
    app, client, people, make_deployment, no_orchestrator
):
    owner = people.create("ada")
    people.create("bea", roles=("admin",))
    deployment_id = make_deployment(owner)
    # Recorded in English by whoever acted: a delete asked for, and the orchestrator finishing.
    _record(
        app,
        deployment_id,
        from_status="ready",
        to_status="ready",
        source="user",
        actor_id=owner,
        kind="delete-requested",
        reason="Delete asked for.",
    )
    _record(
        app,
        deployment_id,
        from_status="ready",
        to_status="VANISHED",
        source="sync",
        reason="The orchestrator no longer knows this deployment.",
    )

    people.login("bea")
    italian = text_of(page(client, f"/deployments/{deployment_id}", **ITALIAN))
    english = text_of(page(client, f"/deployments/{deployment_id}"))

    assert "Eliminazione richiesta" in italian and "proprietario: ada" in italian
    assert "L'orchestratore non conosce più questo deployment." in italian
    assert "Delete asked for" not in italian
    assert "Delete asked for" in english and "owner by ada" in english
    assert "The orchestrator no longer knows this deployment." in english


def test_the_orchestrators_reason_on_the_timeline_is_shown_as_it_said_it(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(
        login_as(), events=[("failed", "sync", "Delete asked for. Not by us")]
    )

    html = text_of(page(client, f"/deployments/{deployment_id}", **ITALIAN))

    assert "Delete asked for. Not by us" in html


def test_a_refusal_of_the_orchestrator_reads_in_italian(emulated, people_for):
    from tests.conftest import csrf_from
    from tests.deployments.test_pages_actions import logged_in

    deployment_id = emulated.launch(emulated.user("ada"))
    client = logged_in(emulated, people_for, "ada")
    token = csrf_from(client.get("/deployments/").get_data(as_text=True))
    emulated.emulator.set_faults(error_rate=1.0, error_status=500)

    answer = client.post(
        f"/deployments/{deployment_id}/delete", data={"csrf_token": token}, headers=ITALIAN
    )
    html = text_of(client.get(answer.headers["Location"], headers=ITALIAN).get_data(as_text=True))
    emulated.emulator.clear_faults()

    assert "L'orchestratore al momento non risponde. Il deployment non è stato eliminato." in html


def test_someone_elses_list_understands_everyone_in_italian(
    app, client, people, make_deployment, no_orchestrator
):
    theirs = make_deployment(people.create("carlo"))
    people.create("dora", roles=("admin",))
    people.login("dora")

    html = page(client, "/deployments/?user=Tutti", **ITALIAN)

    assert f'id="deployment-{theirs}"' in html


def test_a_deployment_found_at_the_orchestrator_names_its_origin_in_italian(
    client, login_as, make_deployment, no_orchestrator
):
    deployment_id = make_deployment(
        login_as(), name="", template_slug="", template_name="Made outside this portal"
    )

    row = text_of(row_of(page(client, "/deployments/", **ITALIAN), deployment_id))

    assert "Creato al di fuori di questo portale" in row
    assert "Made outside this portal" in text_of(
        row_of(page(client, "/deployments/"), deployment_id)
    )
