"""The catalogue in the reader's language: cards, search, tags and launch forms show a template's
Italian words to an Italian request and its English ones to an English request, field by field."""

import re
from html import unescape

import pytest

from app.catalogue import operations
from tests.catalogue.admin_support import VM, VM_SIDECAR

IT = {"Accept-Language": "it"}
EN = {"Accept-Language": "en"}


@pytest.fixture
def app(catalogue_app):
    return catalogue_app


@pytest.fixture
def researcher(people, app):
    return people.login_as("user", username="ada")


def _page(client, url, headers) -> str:
    response = client.get(url, headers=headers)
    assert response.status_code == 200
    return unescape(response.get_data(as_text=True))


def _field_text(html: str, field: str) -> str:
    """The label and help of one launch form field, as text."""
    match = re.search(rf'<label[^>]*for="{field}"[^>]*>(.*?)</label>', html, re.S)
    assert match, f"no label for {field}"
    help_match = re.search(rf'id="{field}-help"[^>]*>(.*?)<', html, re.S)
    return " ".join(
        part.strip() for part in (match.group(1), help_match.group(1) if help_match else "")
    )


def test_an_italian_request_gets_the_italian_cards_and_an_english_one_the_english(
    client, researcher
):
    italian = _page(client, "/catalogue/", IT)
    english = _page(client, "/catalogue/", EN)

    assert "Macchina virtuale" in italian
    assert "Jupyter su macchina virtuale" in italian
    assert "Una macchina virtuale tutta tua, con un indirizzo IP pubblico." in italian
    assert "Jupyter on a virtual machine" not in italian
    assert "Jupyter on a virtual machine" in english
    assert "Macchina virtuale" not in english


def test_the_cards_are_sorted_by_their_name_in_the_readers_language(client, researcher):
    italian = _page(client, "/catalogue/", IT)
    names = re.findall(r'class="stretched-link[^"]*"[^>]*>([^<]+)</a>', italian)
    assert names == sorted(names, key=str.lower)
    assert names[0] == "Cluster Kubernetes"


def test_search_matches_the_italian_words_and_still_the_default_ones(client, researcher):
    found = _page(client, "/catalogue/?q=macchina+virtuale", IT)
    assert 'href="/catalogue/vm/"' in found
    assert 'href="/catalogue/kubernetes-cluster/"' not in found
    by_english_name = _page(client, "/catalogue/?q=kubernetes+cluster", IT)
    assert 'href="/catalogue/kubernetes-cluster/"' in by_english_name
    by_italian_words = _page(client, "/catalogue/?q=bilanciatore", IT)
    assert 'href="/catalogue/mesos-cluster/"' in by_italian_words
    assert 'href="/catalogue/vm/"' not in by_italian_words


def test_the_tag_filter_offers_and_matches_the_italian_tags(client, researcher):
    italian = _page(client, "/catalogue/", IT)
    assert "container" in re.findall(r"tag=([\w-]+)", italian)
    assert "containers" not in re.findall(r"tag=([\w-]+)", italian)
    shown = _page(client, "/catalogue/?tag=container", IT)
    assert 'href="/catalogue/marathon-gpu-container/"' in shown
    assert 'href="/catalogue/vm/"' not in shown


def test_the_launch_form_labels_help_presets_and_tabs_are_in_italian(client, researcher):
    italian = _page(client, "/catalogue/vm/", IT)
    english = _page(client, "/catalogue/vm/", EN)

    assert _field_text(italian, "num_cpus") == "Core Quanti core di processore avrà la macchina."
    assert _field_text(english, "num_cpus") == "Cores How many processor cores the machine gets."
    assert "Chiave SSH pubblica" in italian
    assert "ssh-ed25519 AAAA... tu@portatile" in italian
    for word in ("Piccola", "2 core, 4 GB di memoria, 20 GB di disco", "Base", "Avanzate"):
        assert word in italian
    for word in ("Small", "2 cores, 4 GB memory, 20 GB disk", "Basic", "Advanced"):
        assert word in english
    assert "Chiave SSH pubblica" not in english


def test_a_word_without_italian_shows_in_english_beside_the_italian_ones(app, client, researcher):
    sidecar = VM_SIDECAR.split("translations:")[0] + (
        "translations:\n"
        "  it:\n"
        "    name: Macchina di prova\n"
        "    inputs:\n"
        "      num_cpus: {label: Core}\n"
        "    presets:\n"
        "      Small: {name: Piccola}\n"
    )
    with app.app_context():
        revision = operations.save_revision("vm", VM, sidecar, "seed", "Partly Italian")
        operations.publish("vm", "seed", revision.number)

    italian = _page(client, "/catalogue/vm/", IT)

    assert "Macchina di prova" in italian
    assert _field_text(italian, "num_cpus") == "Core How many processor cores the machine gets."
    assert "Piccola" in italian
    assert "2 cores, 4 GB memory, 20 GB disk" in italian
    assert "Memory" in italian
    card = _page(client, "/catalogue/?q=prova", IT)
    assert "A virtual machine of your own with a public IP address." in card
