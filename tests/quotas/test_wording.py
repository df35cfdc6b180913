"""Quota sentences and pages in the reader's language: whole sentences, plural forms, months."""

import html
from datetime import timedelta

import pytest
from babel.dates import format_date

from app.clock import utcnow
from app.quotas.errors import QuotaExceeded
from tests.conftest import People, csrf_from
from tests.quotas.conftest import Quotas, charge
from tests.quotas.test_preview import FORM, VALUES
from tests.quotas.test_reserve import try_reserve


@pytest.fixture(params=["en", "it"])
def speaking(request, make_app):
    """Quotas in a portal whose default language is English, or Italian."""
    return request.param, Quotas(make_app(DEFAULT_LOCALE=request.param))


def reserve_read(quotas, *args, **kwargs):
    """``try_reserve`` inside a request of someone who chose no language: the site's default
    decides (outside a request the portal speaks English, as its commands do)."""
    with quotas.app.test_request_context("/"):
        return try_reserve(quotas, *args, **kwargs)


REFUSALS = {
    # One holder, then two: the plural forms of "deployment" and of the verb.
    ("en", 1): "This launch does not fit your quota. It needs 2 GPUs, but deployment “alpha” "
    "already holds 1 GPU of your limit of 2 GPUs (1 GPU over). Nothing was launched; delete a "
    "deployment or choose smaller sizes, then launch again.",
    ("en", 2): "This launch does not fit your quota. It needs 2 GPUs, but deployments “alpha” and "
    "“beta” already hold 2 GPUs of your limit of 3 GPUs (1 GPU over).",
    ("it", 1): "Questo avvio supera la tua quota. Richiede 2 GPU, ma il deployment «alpha» usa "
    "già 1 GPU del tuo limite di 2 GPU (1 GPU oltre il limite). Non è stato avviato nulla: "
    "elimina un deployment o scegli dimensioni più piccole, poi avvia di nuovo.",
    ("it", 2): "Questo avvio supera la tua quota. Richiede 2 GPU, ma i deployment «alpha» e "
    "«beta» usano già 2 GPU del tuo limite di 3 GPU (1 GPU oltre il limite).",
}


@pytest.mark.parametrize("holders", [1, 2])
def test_a_refusal_over_quota_is_one_sentence_per_resource_in_the_readers_language(
    speaking, holders
):
    language, quotas = speaking
    user = quotas.user()
    quotas.limit("user", user, gpus=str(holders + 1))
    for name in ("alpha", "beta")[:holders]:
        quotas.hold(user, charge(gpus=1), name=name)
    error = reserve_read(quotas, user, charge(gpus=2))
    assert isinstance(error, QuotaExceeded)
    assert REFUSALS[language, holders] in error.message


@pytest.mark.parametrize(
    ("language", "limit", "expected"),
    [
        ("en", "1", "It needs 2 cores, but your limit is 1 core (1 core over)."),
        ("en", "0", "It needs 2 cores, but your limit is 0 cores (2 cores over)."),
        ("it", "1", "Richiede 2 core, ma il tuo limite è 1 core (1 core oltre il limite)."),
    ],
)
def test_amounts_take_the_plural_form_their_number_asks_for(make_app, language, limit, expected):
    quotas = Quotas(make_app(DEFAULT_LOCALE=language))
    user = quotas.user()
    quotas.limit("user", user, cores=limit)
    assert expected in reserve_read(quotas, user, charge(cores=2)).message


def test_a_pool_refusal_names_the_group_in_italian(make_app):
    quotas = Quotas(make_app(DEFAULT_LOCALE="it"))
    user = quotas.user(groups=["physics"])
    quotas.limit("group", "physics", memory="16 GB")
    message = reserve_read(quotas, user, charge(memory=32), group_name="physics").message
    assert message.startswith("Questo avvio supera la riserva di gruppo physics. Richiede 32 GB")
    assert "ma la riserva di gruppo physics è limitata a 16 GB di memoria" in message


@pytest.fixture
def launcher(catalogue_app):
    people = People(catalogue_app, catalogue_app.test_client())
    user_id = people.login_as("user", username="rita")
    Quotas(catalogue_app).limit("user", user_id, gpus="1")
    return people.client


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("it", "Questo avvio supera la tua quota. Richiede 2 GPU, ma il tuo limite è 1 GPU"),
        ("en", "This launch does not fit your quota. It needs 2 GPUs, but your limit is 1 GPU"),
    ],
)
def test_a_launch_refused_over_quota_says_why_in_the_browsers_language(
    launcher, language, expected
):
    headers = {"Accept-Language": language}
    token = csrf_from(launcher.get(FORM, headers=headers).get_data(as_text=True))
    response = launcher.post(
        FORM, data={"csrf_token": token, **VALUES, "num_gpus": "2"}, headers=headers
    )
    assert response.status_code == 409
    assert expected in " ".join(html.unescape(response.get_data(as_text=True)).split())


@pytest.fixture
def operator(quota_app):
    people = People(quota_app, quota_app.test_client())
    people.login_as("operator", username="olga")
    return people.client


def test_the_usage_page_speaks_italian_and_names_the_months_in_italian(operator, quotas):
    user = quotas.user("gpu-heavy")
    quotas.hold(user, charge(cores=2, gpus=1), created_at=utcnow() - timedelta(hours=10))
    page = operator.get("/quotas/usage", headers={"Accept-Language": "it"}).get_data(as_text=True)
    today = utcnow().date().replace(day=1)
    short, long = format_date(today, "MMM", locale="it"), format_date(today, "MMMM y", locale="it")
    assert f'<span class="flex-fill text-center">{short}</span>' in page
    assert f'<th scope="row">{long}</th>' in page
    assert '<caption class="caption-top">Ore-core al mese, intero sito</caption>' in page
    assert "Utilizzo nel tempo" in page and f"Utenti a {long}" in page
    assert "qualsiasi modello 10,0" in page  # GPUs of no stated model
    english = operator.get("/quotas/usage").get_data(as_text=True)
    assert '<caption class="caption-top">Core-hours per month, whole site</caption>' in english
    assert f'<th scope="row">{format_date(today, "MMMM y", locale="en")}</th>' in english


def test_the_operators_limits_form_and_its_flash_speak_italian(operator, quotas):
    user = quotas.user("rita")
    it = {"Accept-Language": "it"}
    page = operator.get(f"/quotas/users/{user}", headers=it).get_data(as_text=True)
    assert "Limiti personali" in page and "Motivo della modifica" in page
    token = csrf_from(page)
    response = operator.post(
        f"/quotas/users/{user}",
        data={"csrf_token": token, "gpus": "due", "reason": "corso"},
        headers=it,
    )
    assert "GPU: deve essere un numero intero pari o superiore a zero" in html.unescape(
        response.get_data(as_text=True)
    )
    response = operator.post(
        f"/quotas/users/{user}",
        data={"csrf_token": token, "gpus": "2", "reason": "corso"},
        headers=it,
        follow_redirects=True,
    )
    page = html.unescape(response.get_data(as_text=True))
    assert "Limiti salvati per l’utente rita (local)." in page
    assert "2 GPU" in page and "Cronologia" in page
    listing = operator.get("/quotas/", headers=it).get_data(as_text=True)
    assert 'aria-label="GPU: 0 GPU in uso, limite 2 GPU"' in listing
    assert "GPU in uso, dal più alto" in listing


def test_my_usage_speaks_italian_with_the_charge_in_italian_words(quota_app, quotas):
    people = People(quota_app, quota_app.test_client())
    user = people.login_as("user", username="rita")
    quotas.limit("user", user, gpus="4")
    quotas.hold(user, charge(cores=8, memory=16, gpus=2), name="notebook")
    page = people.client.get("/quotas/mine", headers={"Accept-Language": "it"})
    text = " ".join(html.unescape(page.get_data(as_text=True)).split())
    assert "Il mio utilizzo" in text and "Cosa la occupa" in text
    assert "8 core, 16 GB di memoria e 2 GPU" in text
    assert "GPU: 2 GPU in uso, limite 4 GPU" in text


def test_the_launch_box_can_link_the_holders_inside_the_sentence_with_names_escaped(quota_app):
    from markupsafe import Markup, escape

    from app.quotas.fit import Assessment, Bar, misfit_sentence
    from app.quotas.usage import Holder

    holders = [Holder(7, "<b>alpha</b>", "ready", {"gpus": 1}, None)]
    bar = Bar("gpus", "GPUs", used=1, request=2, limit=2, holders=holders)
    with quota_app.test_request_context(headers={"Accept-Language": "it"}):
        sentence = misfit_sentence(
            Assessment(None, [bar]),
            bar,
            lambda h: Markup('<a href="/deployments/{}">{}</a>').format(h.id, h.name),
        )
    assert isinstance(sentence, Markup)
    assert str(sentence) == (
        'Richiede 2 GPU, ma il deployment <a href="/deployments/7">'
        f"{escape('<b>alpha</b>')}</a> usa già 1 GPU del tuo limite di 2 GPU "
        "(1 GPU oltre il limite)."
    )


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", ["2.5 cores", "0.5 cores", "1 core"]), ("it", ["2,5 core", "0,5 core", "1 core"])],
)
def test_a_fraction_of_a_core_takes_the_many_form_without_a_warning(make_app, language, expected):
    """gettext's plural rules take whole numbers only: a fraction used to warn, a 500 under
    warnings-as-errors, on the usage panel of someone holding half a core."""
    from app.capacity.amounts import amount_text as capacity_amount
    from app.quotas.amounts import amount_text

    app = make_app(DEFAULT_LOCALE=language)
    with app.test_request_context():
        assert [amount_text("cores", n) for n in (2.5, 0.5, 1.0)] == expected
        assert capacity_amount("cores", None, 2.5) == expected[0]
