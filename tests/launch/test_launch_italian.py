"""The launch page in Italian and in English: the refusal over quota as one whole sentence,
the cost box's sentences and the tab it marks, the words for amounts with their plurals."""

import html
import re

import pytest

from tests.conftest import People, csrf_from
from tests.quotas.conftest import Quotas, charge

FORM = "/catalogue/jupyter-ml-gpu/"
VALUES = {
    "num_gpus": "1",
    "gpu_model": "T4",
    "num_cpus": "8",
    "mem_size": "32 GB",
    "disk_size": "100 GB",
    "cuda_min_version": "12.2",
    "jupyter_password": "a long enough password 1",
}
ITALIAN = {"Accept-Language": "it"}


@pytest.fixture
def setup(catalogue_app):
    people = People(catalogue_app, catalogue_app.test_client())
    user_id = people.login_as("user", username="rita")
    return people.client, Quotas(catalogue_app), user_id


def text_of(response) -> str:
    return " ".join(html.unescape(response.get_data(as_text=True)).split())


def launch(client, headers=None, **values):
    token = csrf_from(client.get(FORM, headers=headers).get_data(as_text=True))
    return client.post(FORM, data={"csrf_token": token, **VALUES, **values}, headers=headers)


def test_a_launch_over_quota_is_refused_in_one_italian_sentence(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="1")

    response = launch(client, ITALIAN, num_gpus="2")

    page = text_of(response)
    assert response.status_code == 409
    assert (
        "Questo avvio supera la tua quota. Richiede 2 GPU, ma il tuo limite è 1 GPU "
        "(1 GPU oltre il limite). Non è stato avviato nulla: elimina un deployment o scegli "
        "dimensioni più piccole, poi avvia di nuovo."
    ) in page
    assert "Oltre la tua quota: scegli un valore più piccolo." in page
    assert "Non puoi avviare finché la richiesta non rientra nella tua quota" in page
    assert "does not fit" not in page and "Launch is off" not in page


def test_the_same_refusal_reads_in_english_for_an_english_reader(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="1", cores="4")

    page = text_of(launch(client, num_gpus="2", num_cpus="16"))

    assert (
        "This launch does not fit your quota. It needs 16 cores, but your limit is 4 cores "
        "(12 cores over). It needs 2 GPUs, but your limit is 1 GPU (1 GPU over). Nothing was "
        "launched; delete a deployment or choose smaller sizes, then launch again."
    ) in page
    assert "Over your quota: choose less here." in page


def post_summary(client, headers=None, **values):
    token = csrf_from(client.get(FORM, headers=headers).get_data(as_text=True))
    response = client.post(
        FORM + "summary", data={"csrf_token": token, **VALUES, **values}, headers=headers
    )
    assert response.status_code == 200
    return text_of(response)


def test_the_live_box_names_the_holders_and_the_tab_to_change_in_italian(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="2")
    quotas.hold(user, charge(gpus=1), name="vecchia prova")

    box = post_summary(client, ITALIAN, num_gpus="2")

    assert "Non rientra:" in box
    assert re.search(r'il deployment <a href="/deployments/\d+">vecchia prova</a>', box)
    assert (
        "Richiede 2 GPU, ma il deployment vecchia prova usa già 1 GPU del tuo limite di 2 GPU "
        "(1 GPU oltre il limite)."
    ) in re.sub(r"<[^>]+>", "", box)
    # The GPUs are on the first tab ("Basic", in Italian "Base" by the template's own words):
    # the box tells the page which tab to mark.
    assert 'data-misfit-tabs="1"' in box
    assert 'data-launchable="no"' in box
    assert "scegli dimensioni più piccole nella scheda «Base»" in box
    assert 'data-misfit-tabs=""' in post_summary(client, ITALIAN, num_gpus="1")


def test_the_launch_page_marks_the_tab_over_quota_before_any_submit(setup):
    client, quotas, user = setup
    quotas.limit("user", user, gpus="1")
    quotas.hold(user, charge(gpus=1), name="old run")

    page = client.get(FORM).get_data(as_text=True)

    # Launch is off, as the check at submit would refuse; the reason names the tab.
    assert 'id="launch-button" class="btn btn-primary btn-lg" disabled' in page
    assert "choose smaller sizes on the “Basic” tab" in html.unescape(page)
    badges = page.split('class="badge text-bg-warning quota-tab-badge"')
    assert len(badges) == 3  # one per tab
    assert not badges[1].startswith(" hidden") and badges[2].startswith(" hidden")
