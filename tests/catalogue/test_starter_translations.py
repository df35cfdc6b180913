"""The starter catalogue speaks Italian: every word a reader sees in English has its Italian."""

from pathlib import Path

import pytest

from app.tosca.parsed import parse_template
from app.tosca.translations import missing_words
from tests.catalogue.test_starter_templates import CATALOGUE, STARTERS


@pytest.fixture(scope="module", params=STARTERS)
def starter(request):
    slug = request.param
    text = (CATALOGUE / f"{slug}.yaml").read_text(encoding="utf-8")
    sidecar = (CATALOGUE / f"{slug}.portal.yaml").read_text(encoding="utf-8")
    return parse_template(slug, text, sidecar, types_dir=CATALOGUE / "types")


def test_the_starter_translations_are_valid(starter):
    assert starter.ok, starter.errors
    assert [w.message for w in starter.warnings if w.source == "sidecar"] == []


def test_every_english_word_of_a_starter_has_its_italian(starter):
    assert missing_words(starter, "it") == []


def test_every_starter_names_its_tabs_in_italian(starter):
    assert set(starter.translations["it"]["tabs"]) == {tab["name"] for tab in starter.tabs}


def test_the_italian_words_are_not_left_in_english(starter):
    """A copy of the English text is a translation forgotten, unless it is a name or a size."""
    italian = starter.localised("it")
    same = [
        f"inputs.{spec.name}.help"
        for spec, original in zip(italian.inputs, starter.inputs, strict=True)
        if spec.help and spec.help == original.help
    ]
    if italian.description == starter.description:
        same.append("description")
    assert same == []


def test_the_catalogue_readme_documents_the_translations_block():
    readme = (Path(CATALOGUE) / "README.md").read_text(encoding="utf-8")
    assert "translations:" in readme
    assert "display_name_it" in readme
