"""Leases speak the reader's language: the panel and its countdown's words, an extend refused,
the lease's entries on the timeline and a delete refused at its end, worded when shown."""

import html as markup
import re
from datetime import datetime, timedelta

import pytest
from flask_babel import force_locale

from app.leases.presenters import countdown_words, time_left
from tests.conftest import csrf_from
from tests.launch.test_launch_form import login

ITALIAN = {"Accept-Language": "it"}


def words(html: str) -> str:
    return " ".join(markup.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _ready(emulated, leases, **policy):
    leases.policy(**policy)
    deployment_id = leases.launch(emulated.user("ada"))
    leases.ready(deployment_id)
    return deployment_id, login(emulated, "ada")


def test_the_lease_panel_reads_in_italian_with_the_countdowns_words(emulated, leases, clock):
    deployment_id, client = _ready(emulated, leases, default="1d", extend_step="1d", cap="3d")

    page = client.get(f"/deployments/{deployment_id}", headers=ITALIAN).get_data(as_text=True)
    panel = page[page.index('id="lease"') : page.index("</section>", page.index('id="lease"'))]

    shown = words(panel)
    assert "Periodo di utilizzo" in shown and "Tempo residuo:" in shown
    assert "23 ore 59 minuti" in shown or "1 giorno 0 ore" in shown
    assert "Termina" in shown and "Si può prorogare fino a" in shown
    assert re.search(r">\s*Proroga\s*</button>", panel)
    assert 'data-words-day-one="%(num)d giorno"' in panel
    assert 'data-words-day-other="%(num)d giorni"' in panel
    assert 'data-words-hours-minutes="%(hours)s %(mins)s"' in panel

    english = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    assert 'data-words-day-other="%(num)d days"' in english and "Extend" in english


def test_an_extend_refused_reads_in_italian(emulated, leases, clock):
    deployment_id, client = _ready(
        emulated, leases, default="3d", extend_step="1d", extend_window="2d"
    )
    page = client.get(f"/deployments/{deployment_id}", headers=ITALIAN).get_data(as_text=True)

    assert "Non ora: le proroghe sono possibili a partire da 2 giorni prima della fine." in words(
        page
    )

    answer = client.post(
        f"/deployments/{deployment_id}/extend",
        data={"csrf_token": csrf_from(page)},
        headers=ITALIAN,
    )
    shown = words(client.get(answer.location, headers=ITALIAN).get_data(as_text=True))
    assert (
        "Ora non è possibile prorogare questo periodo di utilizzo: le proroghe sono possibili "
        "a partire da 2 giorni prima della fine." in shown
    )


@pytest.mark.parametrize(
    ("minutes", "english", "italian"),
    [
        (1, "1 minute", "1 minuto"),
        (2, "2 minutes", "2 minuti"),
        (61, "1 hour 1 minute", "1 ora 1 minuto"),
        (122, "2 hours 2 minutes", "2 ore 2 minuti"),
        (1500, "1 day 1 hour", "1 giorno 1 ora"),
        (3000, "2 days 2 hours", "2 giorni 2 ore"),
    ],
)
def test_time_left_takes_the_plural_form_of_each_language(app, minutes, english, italian):
    now = datetime(2026, 11, 25, 10, 0)
    with app.test_request_context():
        assert time_left(now + timedelta(minutes=minutes), now) == english
        with force_locale("it"):
            assert time_left(now + timedelta(minutes=minutes), now) == italian


def test_the_countdowns_words_give_one_and_more_in_each_language(app):
    with app.test_request_context():
        assert countdown_words()["minute-one"] == "%(num)d minute"
        with force_locale("it"):
            italian = countdown_words()
    assert (italian["hour-one"], italian["hour-other"]) == ("%(num)d ora", "%(num)d ore")


def test_the_leases_timeline_entries_read_in_each_readers_language(emulated, leases, clock):
    deployment_id, client = _ready(emulated, leases, default="1d", extend_step="1d")
    page = client.get(f"/deployments/{deployment_id}").get_data(as_text=True)
    client.post(f"/deployments/{deployment_id}/extend", data={"csrf_token": csrf_from(page)})

    italian = words(
        client.get(f"/deployments/{deployment_id}", headers=ITALIAN).get_data(as_text=True)
    )
    english = words(client.get(f"/deployments/{deployment_id}").get_data(as_text=True))

    timeline = italian[italian.index("Cronologia") :]
    assert "Periodo di utilizzo iniziato" in timeline and "Termina" in timeline
    assert "Periodo di utilizzo prorogato" in timeline and "Ora termina" in timeline
    assert "Lease started" not in timeline
    timeline = english[english.index("Timeline") :]
    assert "Lease started" in timeline and "Lease extended" in timeline


def test_a_delete_refused_at_the_lease_end_reads_in_italian(emulated, leases, clock):
    deployment_id, client = _ready(emulated, leases, default="1h", grace="0m")
    emulated.emulator.set_faults(error_rate=1.0, paths=["DELETE /deployments/*"])
    clock.move(minutes=61)
    leases.expire()  # ends
    assert leases.expire().delete_failed == 1
    client = login(emulated, "ada")  # the session ended meanwhile

    italian = words(
        client.get(f"/deployments/{deployment_id}", headers=ITALIAN).get_data(as_text=True)
    )
    english = words(client.get(f"/deployments/{deployment_id}").get_data(as_text=True))

    assert (
        "Il periodo di utilizzo è terminato, ma l'eliminazione non è riuscita: L'orchestratore "
        "al momento non risponde. Il deployment non è stato eliminato." in italian
    )
    assert "L'eliminazione alla fine del periodo di utilizzo non è riuscita." in italian
    assert (
        "The lease ended but the delete failed: The orchestrator is not answering right now. "
        "The deployment was not deleted." in english
    )


def _operator(emulated):
    from app.auth.models import User
    from app.auth.operations import grant_role
    from app.extensions import db

    olga = emulated.user("olga")
    with emulated.app.app_context():
        grant_role(db.session.get(User, olga), "operator", granted_by="test")
        db.session.commit()
    return login(emulated, "olga")


def test_the_operators_leases_page_reads_in_italian_help_and_levels_included(emulated, leases):
    from app.leases.policy import FIELDS

    leases.policy(default="2d", warn="1d,1h", reason="corso")
    client = _operator(emulated)

    shown = words(client.get("/leases/", headers=ITALIAN).get_data(as_text=True))

    assert "Proposta nel modulo di avvio. Vuoto: decide il livello successivo." in shown
    assert "Durata predefinita: 2 giorni; Avvisi: 1 giorno, 1 ora" in shown
    with emulated.app.test_request_context(), force_locale("en"):
        english = [str(spec.help) for spec in FIELDS] + ["Empty: the next level decides."]
    assert [sentence for sentence in english if sentence in shown] == []
    # Words, not the command line's spelling.
    assert "default 2d" not in shown and "warn 1d,1h" not in shown
    # Who changed it: the command line, in Italian (stored as no one, worded when shown).
    assert "riga di comando" in shown and "command line" not in shown


def test_a_policy_for_an_unknown_template_is_refused_in_italian_on_the_page(emulated):
    from tests.conftest import csrf_from

    client = _operator(emulated)
    url = "/leases/?template=nessuno"
    token = csrf_from(client.get(url, headers=ITALIAN).get_data(as_text=True))

    refused = client.post(
        url, data={"csrf_token": token, "default": "8h", "reason": "prova"}, headers=ITALIAN
    )

    assert refused.status_code == 400
    assert "Il catalogo non ha nessun template chiamato “nessuno”" in words(
        refused.get_data(as_text=True)
    )
